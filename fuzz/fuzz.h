/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what every fuzz harness in fuzz/ shares.
 *
 * A harness is one file defining LLVMFuzzerTestOneInput() (and, when it
 * needs set-up, LLVMFuzzerInitialize()).  It is linked two ways:
 *
 *	make fuzz	with clang -fsanitize=fuzzer,address,undefined: the
 *			libFuzzer driver mutates inputs (fuzz/fuzz.sh)
 *	make check	with the configured compiler and fuzz/replay.c as
 *			main(): the inputs in fuzz/regress/<harness>/ and
 *			fuzz/seeds/<harness>/, and a corpus made from real
 *			objects, run once each (tests/run-fuzz-regress.sh);
 *			with --enable-sanitizers under ASan and UBSan too
 *
 * A harness must never keep state between inputs that changes what an
 * input does, must free what it allocates (libFuzzer reports leaks), and
 * reports a broken invariant with fuzz_fail(), which aborts: both drivers
 * count an abort as a crash.
 */
#ifndef USDT_FUZZ_H
#define USDT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * A sanitizer runtime's way to print a line where its reports go: under
 * `make fuzz` (-close_fd_mask=2) stderr is closed, libFuzzer's copy of it
 * is not.  Weak: absent without sanitizers.
 */
void __sanitizer_report_error_summary(const char *summary)
	__attribute__((weak));

/* A broken invariant: say which and abort, so the input is kept. */
#define fuzz_fail(...)                                                   \
	do {                                                             \
		char fuzz_msg_[2048];                                    \
		int fuzz_n_ = snprintf(fuzz_msg_, sizeof(fuzz_msg_),     \
				       "fuzz: %s:%d: ", __FILE__,        \
				       __LINE__);                        \
		if (fuzz_n_ > 0 && (size_t)fuzz_n_ < sizeof(fuzz_msg_))  \
			snprintf(fuzz_msg_ + fuzz_n_,                    \
				 sizeof(fuzz_msg_) - (size_t)fuzz_n_,    \
				 __VA_ARGS__);                           \
		fprintf(stderr, "%s\n", fuzz_msg_);                      \
		if (__sanitizer_report_error_summary)                    \
			__sanitizer_report_error_summary(fuzz_msg_);     \
		abort();                                                 \
	} while (0)

#define fuzz_assert(cond)                                                \
	do {                                                             \
		if (!(cond))                                             \
			fuzz_fail("invariant failed: %s", #cond);        \
	} while (0)

#endif /* USDT_FUZZ_H */
