/*
 * An inline of a constant expression used as an index (folded into a
 * literal there: check.c's d_fold_int()) keeps its type everywhere
 * else: compared with a string, it is refused as any int is.
 */
inline int Z = 1 - 1;

BEGIN
{
	exit(0);
	trace(uregs[Z]);
	trace(execname == Z);
	exit(0);
}
