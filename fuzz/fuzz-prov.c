// SPDX-License-Identifier: MIT
/*
 * fuzz-prov.c - fuzz the provider compiler (sdk/prov_parse.c and its lexer) and, on
 * whatever it accepts, the header writer (sdk/prov_header.c).
 *
 * Input: the text of a D provider file, not NUL-terminated (the parser
 * takes a length).  Seeds are the provider files of real projects
 * (the .d files of tests/data), the examples and fuzz/src; prov.dict gives
 * libFuzzer the keywords.
 *
 * Invariants checked beyond "no crash":
 *  - a refusal comes with a message, every diagnostic string is
 *    terminated, and prov_diag_print() can print it;
 *  - an accepted file has the shape prov.h documents: names that fit the
 *    DOF limits, public names as prov_pubname() makes them, at most
 *    PROV_ARGS_MAX arguments of integer or pointer type and 1-8 bytes,
 *    argument maps inside the native list, and every provider and probe
 *    found again by name;
 *  - `dtrace -h` can write a header for it in both probe styles (into
 *    memory here).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "prov.h"

#define FUZZ_NAME "fuzz.d"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		fuzz_fail("cannot open /dev/null");
	return 0;
}

static void check_terminated(const char *s, size_t size)
{
	fuzz_assert(memchr(s, '\0', size) != NULL);
}

static void check_type(const struct prov_type *t)
{
	fuzz_assert(t->dname != NULL && t->cname != NULL);
	fuzz_assert(strlen(t->dname) < PROV_TYPE_NAME_MAX);
	fuzz_assert(t->kind == PROV_K_INT || t->kind == PROV_K_PTR);
	fuzz_assert(t->size == 1 || t->size == 2 || t->size == 4 ||
		    t->size == 8);
	fuzz_assert(t->kind != PROV_K_PTR || t->size == 8);
}

static void check_probe(const struct prov_provider *pv,
			const struct prov_probe *pr)
{
	char buf[256];

	fuzz_assert(pr->name && *pr->name && pr->pubname);
	fuzz_assert(strlen(pr->pubname) < PROV_PROBE_NAME_MAX);
	fuzz_assert(prov_pubname(pr->name, buf, sizeof(buf)) >= 0);
	fuzz_assert(strcmp(buf, pr->pubname) == 0);
	fuzz_assert(prov_find_probe(pv, pr->name) == pr);
	fuzz_assert(pr->nargc <= PROV_ARGS_MAX && pr->xargc <= PROV_ARGS_MAX);
	for (unsigned i = 0; i < pr->nargc; i++)
		check_type(&pr->nargv[i].type);
	for (unsigned i = 0; i < pr->xargc; i++) {
		check_type(&pr->xargv[i].type);
		fuzz_assert(pr->argmap != NULL);
		fuzz_assert(pr->argmap[i] < pr->nargc);
	}
	/* the mangled names -h and -G use must all be there */
	fuzz_assert(prov_macro(pv->name, pr->name, buf, sizeof(buf)) > 0);
	fuzz_assert(prov_func_sym(pv->name, pr->name, buf, sizeof(buf)) > 0);
	fuzz_assert(prov_enabled_sym(pv->name, pr->name, buf,
				     sizeof(buf)) > 0);
	fuzz_assert(prov_sema_sym(pv->name, pr->name, buf, sizeof(buf)) > 0);
}

static void check_file(const struct prov_file *pf)
{
	char attr[64];

	for (unsigned v = 0; v < pf->provider_cnt; v++) {
		const struct prov_provider *pv = &pf->providers[v];
		size_t n;

		fuzz_assert(pv->name && *pv->name);
		n = strlen(pv->name);
		fuzz_assert(n < PROV_NAME_MAX - PROV_PID_DIGITS);
		fuzz_assert(pv->name[n - 1] < '0' || pv->name[n - 1] > '9');
		fuzz_assert(prov_find_provider(pf, pv->name) == pv);
		for (unsigned a = 0; a < PROV_ATTR_CNT; a++) {
			fuzz_assert(pv->attr[a].name <= PROV_STAB_MAX);
			fuzz_assert(pv->attr[a].data <= PROV_STAB_MAX);
			fuzz_assert(pv->attr[a].dclass <= PROV_CLASS_MAX);
			prov_attr_str(&pv->attr[a], attr, sizeof(attr));
			check_terminated(attr, sizeof(attr));
		}
		for (unsigned p = 0; p < pv->probe_cnt; p++)
			check_probe(pv, &pv->probes[p]);
	}
	for (unsigned w = 0; w < pf->warning_cnt; w++)
		fuzz_assert(pf->warnings[w] != NULL);
}

static void check_diag(const struct prov_diag *d)
{
	check_terminated(d->file, sizeof(d->file));
	check_terminated(d->msg, sizeof(d->msg));
	check_terminated(d->hint, sizeof(d->hint));
	check_terminated(d->srcline, sizeof(d->srcline));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prov_header_opts hopts = { .guard_from = "fuzz.h" };
	struct prov_file *pf = NULL;
	struct prov_diag diag;
	char *hdr = NULL;
	size_t hdrlen = 0;
	FILE *mem;
	int err;

	err = prov_parse_buf(FUZZ_NAME, (const char *)data, size, &pf, &diag);
	check_diag(&diag);
	if (err) {
		fuzz_assert(err < 0 && pf == NULL);
		fuzz_assert(diag.msg[0] != '\0');
		prov_diag_print(devnull, FUZZ_NAME, &diag);
		return 0;
	}
	fuzz_assert(pf != NULL);
	check_file(pf);

	/* both probe styles: calls for -G, inline <sys/sdt.h> probes */
	for (int style = PROV_STYLE_CALL; style <= PROV_STYLE_INLINE; style++) {
		hopts.style = (enum prov_probe_style)style;
		hdr = NULL;
		hdrlen = 0;
		mem = open_memstream(&hdr, &hdrlen);
		if (!mem)
			fuzz_fail("open_memstream: %s", strerror(errno));
		err = prov_write_header(pf, &hopts, mem, &diag);
		check_diag(&diag);
		if (err)
			fuzz_fail("accepted, but no header (style %d): %s",
				  style, diag.msg);
		fclose(mem);
		fuzz_assert(hdr != NULL && strlen(hdr) == hdrlen);
		fuzz_assert(strstr(hdr, "#ifndef _FUZZ_H\n") != NULL);
		free(hdr);
	}
	prov_file_free(pf);
	return 0;
}
