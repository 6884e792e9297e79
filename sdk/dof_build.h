/* SPDX-License-Identifier: MIT */
/*
 * dof_build.h - writing the DOF of an object's probes (dtrace -G).
 */
#ifndef USDT_DOF_BUILD_H
#define USDT_DOF_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "prov.h"

/*
 * The sites of one probe in one function: one dof_probe_t.  Offsets are
 * from the start of the function, in the order given.
 */
struct dof_fprobe {
	const struct prov_provider *pv;
	const struct prov_probe *pr;
	const char *func;	/* function name as consumers see it */
	const char *sym;	/* symbol dofpr_addr is relocated against */
	unsigned tag;		/* the caller's, handed back in the reloc */
	uint32_t *offs;		/* probe sites */
	unsigned noffs;
	uint32_t *enoffs;	/* legacy is-enabled sites */
	unsigned nenoffs;
};

/* Where the writer must place an address: an ELF relocation to emit. */
struct dof_addr_reloc {
	uint64_t offset;	/* of a dofpr_addr in the blob */
	const char *sym;	/* the dof_fprobe's sym */
	unsigned tag;		/* and its tag */
};

/*
 * Build the DOF for the fprobes, grouped by provider in the order the
 * providers appear in pf; providers without sites are left out.  The
 * blob and relocation array are malloc'd.  Returns 0 or a negative errno
 * with a message in msg.
 */
int dof_build(const struct prov_file *pf, const struct dof_fprobe *fp,
	      unsigned n, void **blob, size_t *size,
	      struct dof_addr_reloc **relocs, unsigned *nrelocs,
	      char *msg, size_t msglen);

/* The type string a DOF records for an argument. */
int dof_type_name(const struct prov_type *t, char *buf, size_t len);

#endif /* USDT_DOF_BUILD_H */
