/* commit( ) and data-recording actions do not share a clause. */
BEGIN
{
	commit(1);
	trace(1);
}
