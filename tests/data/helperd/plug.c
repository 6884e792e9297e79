// SPDX-License-Identifier: MIT
/* plug.so: a plugin with probes that ctl dlopens and dlcloses. */
#include "hdplug.h"

int plug_hello(const char *who)
{
	HDPLUG_HELLO((char *)who);
	return 0;
}
