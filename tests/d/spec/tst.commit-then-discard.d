/* A clause's closes run in its statements' order: a commit() stands
 * whatever follows it in the same clause (a discard() or a second
 * commit() of that buffer does nothing), where a discard() first leaves
 * nothing for a commit() after it; the committed buffers print in the
 * order of their commit()s, and all four are free again after. */
#pragma D option quiet
#pragma D option nspec=4

BEGIN
{
	w = speculation();
	x = speculation();
	y = speculation();
	z = speculation();
}

BEGIN { speculate(w); printf("w: committed, then discarded\n"); }
BEGIN { speculate(x); printf("x: discarded, then committed\n"); }
BEGIN { speculate(y); printf("y: committed twice\n"); }
BEGIN { speculate(z); printf("z: committed last\n"); }

BEGIN
{
	commit(z);
	commit(w);
	discard(w);
	discard(x);
	commit(x);
	commit(y);
	commit(y);
}

BEGIN
{
	printf("ids after: %d %d %d %d\n", speculation(), speculation(),
	    speculation(), speculation());
	exit(0);
}
