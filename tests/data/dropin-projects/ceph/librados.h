// librados's write (a miniature written for these tests).
#ifndef LIBRADOS_H
#define LIBRADOS_H
int rados_write(const char *oid, const char *buf, int len);
#endif
