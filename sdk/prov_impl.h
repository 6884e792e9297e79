/* SPDX-License-Identifier: MIT */
/*
 * prov_impl.h - internals of the provider compiler shared between its
 * files (not installed, not for other parts of usdt-sdk).
 */
#ifndef USDT_PROV_IMPL_H
#define USDT_PROV_IMPL_H

#include "prov.h"

/* A type name every provider file may use without declaring it. */
struct builtin_type {
	const char *name;	/* as written: "uint32_t" */
	const char *cname;	/* C spelling when no header declares it */
	unsigned size;
	bool is_signed;
	bool is_pointer;
	enum prov_sysinc inc;	/* header that declares `name`, if any */
};

const struct builtin_type *prov_builtin_type(const char *s, size_t n);

void prov_type_clear(struct prov_type *t);
int prov_type_copy(struct prov_type *dst, const struct prov_type *src);

#endif /* USDT_PROV_IMPL_H */
