/*
 * A miniature of libvirt 9.0's src/libvirt_probes.d (written for these
 * tests): probes grouped under `# file:`, `# prefix:`, `# binary:` and
 * `# module:` comment lines, which libvirt's dtrace2systemtap.py reads
 * and a `dtrace` must take for comments, some indented with spaces
 * (virobject.c's group in libvirt's file), a declaration over two
 * lines.  rpc_socket_dispose is called nowhere: no file may carry it.
 */
provider libvirt {
	# file: src/util/vireventglib.c
	# prefix: event_glib
	probe event_glib_add_handle(int watch, int fd, int events, void *cb, void *opaque, void *ff);

        # file: src/rpc/virnetsocket.c
        # prefix: rpc
        probe rpc_socket_new(void *sock, int fd, int errfd, pid_t pid,
			     const char *localAddr, const char *remoteAddr);
        probe rpc_socket_dispose(void *sock);

	# file: src/qemu/qemu_monitor.c
	# prefix: qemu
	# binary: libvirtd
	# module: libvirt/connection-driver/libvirt_driver_qemu.so
	probe qemu_monitor_send_msg(void *mon, const char *msg, int fd);
};
