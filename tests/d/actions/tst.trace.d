/* trace() in quiet mode: the value alone, no separator. */
#pragma D option quiet

BEGIN
{
	trace(1);
	trace("-");
	trace(-5);
	trace("|");
	trace((uint8_t)300);
	trace("\n");
	exit(0);
}
