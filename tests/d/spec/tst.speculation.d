/* Speculations: speculation() hands out buffer IDs (nspec of them, 0
 * when none is free: a failed speculation, reported on standard error
 * when tracing stops); a speculating clause's output waits in its buffer
 * until commit() prints it, in order; discard() throws it away; a freed buffer is handed out again;
 * speculate(0) and a buffer not active drop the output silently. */
#pragma D option quiet
#pragma D option nspec=2

BEGIN
{
	a = speculation();
	b = speculation();
	none = speculation();
	printf("ids %d %d %d\n", a, b, none);
}

BEGIN
{
	speculate(a);
	printf("a: first\n");
}

BEGIN
{
	speculate(b);
	printf("b: never seen\n");
}

BEGIN
{
	speculate(a);
	printf("a: second %s\n", "line");
}

BEGIN
{
	speculate(0);
	printf("zero: never seen\n");
}

BEGIN
{
	printf("before commit\n");
	discard(b);
}

BEGIN
{
	commit(a);
}

BEGIN
{
	printf("after commit\n");
}

BEGIN
{
	speculate(a);
	printf("a after its commit: never seen\n");
}

BEGIN
{
	again = speculation();
	printf("after commit: %d %d %d\n", again, speculation(), speculation());
	exit(0);
}
