/* A clause's closes run in its statements' order: a commit() stands
 * whatever follows it in the same clause (a discard() or a second
 * commit() of that buffer does nothing), where a discard() first leaves
 * nothing for a commit() after it; a speculation() after them takes a
 * buffer they freed; the committed buffers print in the order of their
 * commit()s. */
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
	again = speculation();
}

BEGIN
{
	printf("taken again in the closing clause: %d\n", again);
	printf("ids after: %d %d %d\n", speculation(), speculation(),
	    speculation());
	exit(0);
}
