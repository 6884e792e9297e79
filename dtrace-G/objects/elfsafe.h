/* SPDX-License-Identifier: MIT */
/*
 * elfsafe.h - descriptors of files another user may change, safe for
 * libdwfl and libdw to map (elfsafe.c).
 */
#ifndef USDT_DTRACE_ELFSAFE_H
#define USDT_DTRACE_ELFSAFE_H

#include <sys/stat.h>

#include <elfutils/libdwfl.h>

/*
 * fd itself when only root (or dtrace's own user) can change its file,
 * else a sealed private copy of it (fd is closed either way); -1 when fd
 * is no regular file, too large to copy, or on error.
 */
int dt_safe_fd(int fd);

/* Open path for reading and make it safe (dt_safe_fd()); -1 on failure.
 * st (unless NULL) receives what the file was (for dt_dwfl_bind()). */
int dt_safe_open(const char *path, struct stat *st);

/* Tell the debug file search (dt_dwfl_find_debuginfo()) which file, st,
 * a module reported offline is: without it, only /usr/lib/debug is
 * searched by build-id.  dt_dwfl_proc_find_elf() does it itself. */
void dt_dwfl_bind(Dwfl_Module *mod, const struct stat *st);

/*
 * The module of the one file at path, reported to a new offline libdwfl
 * session (*dwfl; NULL when none could begin) through a safe descriptor
 * and bound for the debug file search (dt_dwfl_bind()); NULL when the
 * file cannot be read.  cb and *debuginfo_path are the caller's, and
 * must last as long as the session: libdwfl keeps pointers to them.
 */
Dwfl_Module *dt_dwfl_offline(const char *path, Dwfl_Callbacks *cb,
			     char **debuginfo_path, Dwfl **dwfl);

/* Dwfl_Callbacks.find_elf for processes (dwfl_linux_proc_find_elf()'s
 * work, with safe descriptors) */
int dt_dwfl_proc_find_elf(Dwfl_Module *mod, void **userdata,
			  const char *module_name, Dwarf_Addr base,
			  char **file_name, Elf **elfp);

/* Dwfl_Callbacks.find_debuginfo (dwfl_standard_find_debuginfo()'s search,
 * with safe descriptors, checked before libdwfl maps them) */
int dt_dwfl_find_debuginfo(Dwfl_Module *mod, void **userdata,
			   const char *modname, Dwarf_Addr base,
			   const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif /* USDT_DTRACE_ELFSAFE_H */
