/* libvirt's src/rpc/virnetsocket.c in small, one of the objects of the
 * static library linked whole into libvirt.so: a new socket, announced
 * by PROBE(), whose descriptor is then watched. */
#include <stdio.h>
#include <sys/types.h>
#include "virprobe.h"
#include "libvirt.h"

struct vir_socket {
	int fd;
	char localAddr[32]; /* an array: libvirt's reason for the casts */
};

static struct vir_socket sockets[4];

void *virNetSocketNew(int fd, pid_t pid)
{
	struct vir_socket *sock = &sockets[fd & 3];
	static const char remoteAddr[] = "127.0.0.1;4000";

	sock->fd = fd;
	snprintf(sock->localAddr, sizeof(sock->localAddr), "127.0.0.1;%d",
		 22 + fd);
	PROBE(RPC_SOCKET_NEW,
	      "sock=%p fd=%d errfd=%d pid=%d localAddr=%s remoteAddr=%s", sock,
	      fd, -1, pid, sock->localAddr, remoteAddr);
	virEventGLibAddHandle(fd);
	return sock;
}
