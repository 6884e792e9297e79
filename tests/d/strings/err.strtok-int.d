/* strtok() splits a string, or goes on with NULL: not another integer. */
BEGIN
{
	x = strtok(5, ",");
}
