/* SPDX-License-Identifier: MIT */
/* run-ustack.sh: the probe c() fires, with two addresses to name */
provider ustk {
	probe fire(int, void *, void *);
};
