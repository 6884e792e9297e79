/*
 * Quiet drops the "matched" notice, not the refusal: a script of
 * declarations alone still stops with "no probes matched".
 */
#pragma D option quiet
self int depth;
