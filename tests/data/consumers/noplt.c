// SPDX-License-Identifier: MIT
/*
 * noplt.c - a probe in an object built with -fno-plt
 * (tests/run-G-consumers.sh).  The header of `dtrace -h` declares the
 * probe function hidden, so even here the compiler calls it directly
 * (e8); the store after the call keeps it a call, not a tail jump.
 */
#include "myapp.h"

void fire_noplt(void);
extern volatile int noplt_after;
volatile int noplt_after;

void fire_noplt(void)
{
	MYAPP_NOPLT(-1, (short)-3, (signed char)-10, (unsigned char)200,
		    "no plt", 0x1122334455667788UL);
	noplt_after++;
}
