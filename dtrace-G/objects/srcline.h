/* SPDX-License-Identifier: MIT */
/*
 * srcline.h - file:line of an address from an object's DWARF (srcline.c).
 */
#ifndef USDT_DTRACE_SRCLINE_H
#define USDT_DTRACE_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dt_srcmap;

/*
 * Read the line tables of the object at path.  Never fails for want of
 * debug information (or of libdwarf): the map is then empty.  NULL only
 * without memory.
 */
struct dt_srcmap *dt_srcmap_open(const char *path);

/*
 * The source line of a link-time address; false if unknown.  In a
 * relocatable object, addr is an offset in section shndx (ignored for
 * other files).
 */
bool dt_srcmap_find(const struct dt_srcmap *m, size_t shndx, uint64_t addr,
		    const char **file, unsigned long *line);

void dt_srcmap_free(struct dt_srcmap *m);

/*
 * The source line of address addr (the session's address) in a libdwfl
 * module, for srcline.c and the stacks (consumer/usym.c): the file's
 * full path and the line, or false.
 */
struct Dwfl_Module;
bool dt_dwfl_srcline(struct Dwfl_Module *mod, uint64_t addr,
		     const char **file, unsigned long *line);

#endif /* USDT_DTRACE_SRCLINE_H */
