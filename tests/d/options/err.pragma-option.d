/* An option D does not know. */
#pragma D option nosuchoption
BEGIN
{
	exit(0);
}
