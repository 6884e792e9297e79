// SPDX-License-Identifier: MIT
/*
 * gotcall.c - a probe called through the GOT (tests/run-G-consumers.sh).
 * The probe function is declared the way headers that do not make it
 * hidden declare it (other DTrace implementations' `dtrace -h`), so with
 * -fno-plt the site is `call *__dtrace_myapp___gotcall@GOTPCREL(%rip)`
 * (ff 15, six bytes), which dtrace -G must rewrite too.  The store after
 * the call keeps it a call, not a tail jump.
 */
void __dtrace_myapp___gotcall(int, short, signed char, unsigned char,
			      const char *, unsigned long);
void fire_gotcall(void);
extern volatile int gotcall_after;
volatile int gotcall_after;

void fire_gotcall(void)
{
	__dtrace_myapp___gotcall(-2, (short)-4, (signed char)-11,
				 (unsigned char)199, "through the GOT",
				 0x8877665544332211UL);
	gotcall_after++;
}
