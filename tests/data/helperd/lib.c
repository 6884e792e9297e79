// SPDX-License-Identifier: MIT
/* libhdl.so: a shared library with probes, linked into ctl. */
#include "hdlib.h"

int hdl_call(int x)
{
	HDLIB_CALL(x);
	return x + 1;
}
