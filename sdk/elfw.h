/* SPDX-License-Identifier: MIT */
/*
 * elfw.h - writing small x86-64 relocatable objects with libelf, and
 * localizing the symbols of an object after `ld -r`.
 *
 * The builder collects sections, symbols and relocations by handle and
 * lays them out only in elfw_write(): symbols are sorted so that locals
 * come first (as ELF requires: sh_info of .symtab is the first global),
 * and relocations and group signatures are renumbered to match.
 */
#ifndef USDT_ELFW_H
#define USDT_ELFW_H

#include <stddef.h>
#include <stdint.h>

struct elfw;

struct elfw *elfw_new(void);

/* The object's e_machine: EM_X86_64 (the default) or EM_AARCH64. */
void elfw_set_machine(struct elfw *w, unsigned machine);
void elfw_free(struct elfw *w);

/*
 * Add a section; returns its handle (>= 1), or a negative errno.  data
 * is copied; it may be NULL for SHT_NOBITS.  Handles are not the final
 * section indices: groups and relocation sections are placed at write.
 */
int elfw_section(struct elfw *w, const char *name, uint32_t type,
		 uint64_t flags, uint64_t align, uint64_t entsize,
		 const void *data, size_t size);

/* Replace a section's contents (e.g. once the DOF is complete). */
int elfw_set_data(struct elfw *w, int sec, const void *data, size_t size);

/*
 * Add a symbol; sec is a section handle, 0 for undefined, or SHN_ABS.
 * Returns a symbol handle (>= 1) or a negative errno.
 */
int elfw_symbol(struct elfw *w, const char *name, int sec, uint64_t value,
		uint64_t size, int bind, int type, int visibility);

/* The STT_SECTION symbol of a section (created on first use). */
int elfw_section_symbol(struct elfw *w, int sec);

/* Add a relocation (R_X86_64_*, R_AARCH64_*) against symbol sym to sec. */
int elfw_rela(struct elfw *w, int sec, uint64_t offset, int sym,
	      uint32_t type, int64_t addend);

/* Make a COMDAT group of the given sections, signed by symbol sig. */
int elfw_comdat(struct elfw *w, int sig, const int *secs, unsigned n);

/* Write the object to fd; 0 or a negative errno (message in msg). */
int elfw_write(struct elfw *w, int fd, char *msg, size_t msglen);

/*
 * Make every defined global or weak symbol of the object in `path` local,
 * except those for which keep(name) returns nonzero.  Symbols are
 * reordered (locals first) and every relocation section and group
 * signature renumbered; undefined symbols stay global.
 */
int elfw_localize(const char *path, int (*keep)(const char *name, void *arg),
		  void *arg, char *msg, size_t msglen);

/*
 * Add every section, symbol and relocation of the x86-64 relocatable
 * object at path, as `ld -r` of the two would; sections for which
 * skip(name) is nonzero are left out (w has its own).  -ENOTSUP, with
 * nothing added, for an object this copy does not handle (groups,
 * SHT_REL, SHF_LINK_ORDER, common symbols, extended indices): then use
 * the linker.  Other errors: a negative errno, message in msg.
 */
int elfw_add_object(struct elfw *w, const char *path,
		    int (*skip)(const char *name), char *msg, size_t msglen);

/* elfw_localize()'s rule, on the symbols added to w so far. */
void elfw_localize_all(struct elfw *w,
		       int (*keep)(const char *name, void *arg), void *arg);

#endif /* USDT_ELFW_H */
