/* SPDX-License-Identifier: MIT */
/* tests/run-trace-sitelink.sh: the probe every mode of sl.c fires */
provider sl {
	probe hit(int);
};
