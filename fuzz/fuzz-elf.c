// SPDX-License-Identifier: MIT
/*
 * fuzz-elf.c - fuzz the object reader of `dtrace -G`
 * (dtrace-G/link/link_sites.c).
 *
 * Input: an x86-64 or aarch64 relocatable object.  Seeds are real objects
 * the build compiles from the C files of fuzz/src (for aarch64 where its
 * cross compiler is), before and after `dtrace -G` rewrote them, and -G
 * outputs (fuzz/gen-corpus.sh).
 *
 * Each input goes through dtrace_link_scan_mem(): the same load_object(),
 * gl_check_object() and gl_scan_object() that `dtrace -G` runs on every file
 * it is given (ELF checks, relocation scan, call-site classification,
 * the function lookup, the disassembler check and the COMDAT rules), on
 * a private copy of the bytes, against the providers of
 * fuzz/src/probes.d (parsed once).  Nothing is written.  Refusals are
 * expected; crashes, reads outside the buffer and leaks are not.
 */
#include "config.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtrace.h"
#include "fuzz.h"
#include "prov.h"

#ifndef FUZZ_PROVIDER_D
#define FUZZ_PROVIDER_D "fuzz/src/probes.d"
#endif

static struct prov_file *pf;
static struct dt_link_opts cmd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("FUZZ_PROVIDER_D");
	struct prov_diag diag;

	(void)argc;
	(void)argv;
	if (!path || !*path)
		path = FUZZ_PROVIDER_D;
	if (prov_parse_file(path, NULL, &pf, &diag) < 0) {
		prov_diag_print(stderr, path, &diag);
		fuzz_fail("cannot read the providers the seeds use");
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		fuzz_fail("libelf is out of date");
	cmd.script = path;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned nsite = 0;
	char msg[1024];
	uint8_t *copy;
	int err;

	/* dtrace -G reads files into the heap; so does this */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	err = dtrace_link_scan_mem(&cmd, pf, "fuzz.o", copy, size, &nsite, msg,
				   sizeof(msg));
	fuzz_assert(err <= 0);
	fuzz_assert(memcmp(copy, data, size) == 0);
	free(copy);
	return 0;
}
