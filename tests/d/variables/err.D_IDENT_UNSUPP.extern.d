/*
 * extern declares the type of a kernel symbol, read as `name (the D
 * reference's "External Variables"); a user-level tracer reads none, so
 * the declaration is refused with the reason, not taken for a probe
 * description
 */
extern int kmem_flags;

BEGIN
{
	exit(0);
}
