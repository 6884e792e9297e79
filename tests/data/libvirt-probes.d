/*
 * A miniature of libvirt 9.0's src/libvirt_probes.d (written for these
 * tests): the provider's probes grouped by `# file:` and `# prefix:`
 * comment lines, which libvirt's own scripts read, and every argument a
 * plain C type or a pointer.
 */
provider libvirt {
	# file: src/util/vireventglib.c
	# prefix: event_glib
	probe event_glib_add_handle(int watch, int fd, int events, void *cb, void *opaque, void *ff);
	probe event_glib_remove_handle(int watch);

	# file: src/rpc/virnetsocket.c
	# prefix: rpc
	probe rpc_socket_new(void *sock, int fd, int errfd, pid_t pid, const char *localAddr, const char *remoteAddr);
	probe rpc_socket_dispose(void *sock);

	# file: src/qemu/qemu_monitor.c
	# prefix: qemu
	# binary: libvirtd
	# module: libvirt/connection-driver/libvirt_driver_qemu.so
	probe qemu_monitor_send_msg(void *mon, const char *msg, int fd);
};
