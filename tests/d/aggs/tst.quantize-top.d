/* quantize()'s outermost buckets: 2^62 and above (INT64_MAX among them)
 * count in the last bucket, -2^62 and below (INT64_MIN) in the first,
 * and both are printed, the last with no row after it (DTrace's
 * DTRACE_QUANTIZE_NBUCKETS rows, every one printable). */
#pragma D option quiet

BEGIN
{
	@top = quantize(1LL << 62);
	@top = quantize(0x7fffffffffffffffLL);
	@top = quantize((1LL << 61) + 3);
	@bottom = quantize(-(1LL << 62) - 9);
	@bottom = quantize(-0x7fffffffffffffffLL - 1);
	exit(0);
}
