/* written by a trace-event generator; usdt-sdk test data */
provider qemu {

probe qemu_vfree(void * ptr);

probe qemu_anon_ram_alloc(size_t size, void * ptr);

probe cpu_in(unsigned int addr, char size, unsigned int val);

probe vm_state_notify(int running, int reason, const char * reason_str);

probe dma_blk_io(void * dbs, void * bs, int64_t offset, bool to_dev);

probe memory_region_ops_read(int cpu_index, void * mr, uint64_t addr, uint64_t value, unsigned size);

probe guest_mem_before(void * __cpu, uint64_t vaddr, uint8_t info);

probe vhost_commit(bool started, bool changed);

probe buf_dump(int8_t * buf, size_t len);

probe object_event(void * self_, int in_, const char * string_);

probe system_reset_request();

};
