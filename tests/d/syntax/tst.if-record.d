/* Not quiet: a clause whose if skipped every recording statement
 * leaves no record (as a false predicate), one that ran one does. */
BEGIN
{
	if (0) {
		trace(1);
	}
}

BEGIN
{
	if (1) {
		trace(2);
	} else {
		trace(3);
	}
	exit(0);
}
