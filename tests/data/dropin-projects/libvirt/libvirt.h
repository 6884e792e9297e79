/* The entry points of the miniature libvirt.so (in libvirt.syms). */
#ifndef LIBVIRT_H
#define LIBVIRT_H
#include <sys/types.h>
int virEventGLibAddHandle(int fd);
void *virNetSocketNew(int fd, pid_t pid);
#endif
