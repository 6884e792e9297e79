// SPDX-License-Identifier: MIT
/*
 * tally.h - the API of libtally, the shared library of the out-of-tree
 * example.  Its probes (tally-provider.d) are its own business: callers
 * neither see nor include tally-provider.h.
 */
#ifndef TALLY_H
#define TALLY_H

void tally_add(long value);
long tally_total(void);

#endif /* TALLY_H */
