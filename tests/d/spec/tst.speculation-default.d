/* Without quiet, a speculated record keeps its default line (the
 * speculating probe's), and comes out after the committing clause's own
 * default line; a record that would take the buffer past specsize bytes
 * is dropped and counted as a speculative drop; speculate() past nspec
 * is an illegal operation. */
#pragma D option specsize=130

BEGIN
{
	s = speculation();
}

BEGIN
{
	speculate(s);
	trace("kept");
}

BEGIN
{
	speculate(s);
	trace("too long for what is left of the buffer");
}

BEGIN
{
	speculate(s);
}

BEGIN
{
	commit(s);
}

BEGIN
{
	speculate(2);
	trace("never seen");
}

BEGIN
{
	exit(0);
}
