// SPDX-License-Identifier: MIT
/*
 * site.c - what the machines' probe-site modules share (site.h): the
 * table that picks a module by ELF machine, a function's instruction
 * boundaries as a bit set, the hex dumps messages quote, and the
 * refusal they format (site_err()).
 *
 * A machine -G does not know is refused by its callers with the name
 * site_machine_name() gives, never rewritten by guess: another
 * instruction set's calls look nothing like these.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a64site.h"
#include "site.h"
#include "x86site.h"

int site_err(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const struct site_arch *site_arch_of(unsigned machine)
{
	if (machine == EM_X86_64)
		return &site_arch_x86_64;
	if (machine == EM_AARCH64)
		return &site_arch_aarch64;
	return NULL;
}

const char *site_machine_name(unsigned machine, char *buf, size_t len)
{
	const struct site_arch *a = site_arch_of(machine);

	if (a)
		return a->name;
	snprintf(buf, len, "machine %u", machine);
	return buf;
}

void site_hex(const uint8_t *p, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n && o + 4 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%02x", i ? " " : "",
				      p[i]);
}

void site_insns_init(struct site_insns *m, const uint8_t *sec,
		     size_t secsize, uint64_t fstart, uint64_t fsize)
{
	memset(m, 0, sizeof(*m));
	m->sec = sec;
	/* a symbol claiming bytes past its section gets clipped to it */
	if (fstart > secsize)
		fstart = secsize;
	if (fsize > secsize - fstart)
		fsize = secsize - fstart;
	m->fstart = fstart;
	m->fsize = fsize;
	m->pc = fstart;
}

void site_insns_free(struct site_insns *m)
{
	free(m->starts);
	m->starts = NULL;
}
