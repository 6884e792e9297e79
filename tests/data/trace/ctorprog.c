// SPDX-License-Identifier: MIT
/*
 * ctorprog.c - linked with libctl.so: its own constructor fires ctp:::hit
 * 3 times (arg0 0..2), main 5 times (arg0 10..14), then calls the
 * library's ctl_call(4).
 */
#include "ctor.h"

void ctl_call(int n);

__attribute__((constructor)) static void ctp_init(void)
{
	for (int i = 0; i < 3; i++)
		CTP_HIT(i);
}

int main(void)
{
	for (int i = 0; i < 5; i++)
		CTP_HIT(10 + i);
	ctl_call(4);
	return 0;
}
