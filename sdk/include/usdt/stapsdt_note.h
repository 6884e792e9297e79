/* SPDX-License-Identifier: MIT */
/*
 * stapsdt_note.h - the layout of a SystemTap SDT note (doc/DESIGN.md §7),
 * the names and numbers only.
 *
 * `dtrace -G` (dtrace-G/link/link_out.c) writes these notes, sdk/stapsdt.c reads
 * them, and the consumer finds them by these names.  Like the other
 * headers in sdk/include/usdt/, this one only describes bytes, so it
 * compiles freestanding.
 *
 *	section .note.stapsdt (SHT_NOTE, 4-aligned), one note per probe site:
 *	  u32 namesz = 8, u32 descsz, u32 type = 3
 *	  "stapsdt\0"
 *	  descriptor: three address-size words (pc, link-time address of
 *	  .stapsdt.base, semaphore or 0), then provider, name and argument
 *	  string, each NUL-terminated, padded to 4
 *	section .stapsdt.base: one byte whose address every note records, so
 *	  a reader can tell how far the object was moved after linking
 */
#ifndef USDT_STAPSDT_NOTE_H
#define USDT_STAPSDT_NOTE_H

#define STAPSDT_NOTE_NAME "stapsdt"		/* the note's owner */
#define STAPSDT_NOTE_NAMESZ 8			/* with its NUL */
#define STAPSDT_NOTE_TYPE 3			/* NT_STAPSDT */
#define STAPSDT_SECTION ".note.stapsdt"
#define STAPSDT_BASE_SECTION ".stapsdt.base"
#define STAPSDT_BASE_SYMBOL "_.stapsdt.base"	/* as <sys/sdt.h> names it */
#define STAPSDT_NOTE_ALIGN 4

#endif /* USDT_STAPSDT_NOTE_H */
