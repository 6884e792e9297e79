/* the message names the array (ab, not a) */
int ab[int];

BEGIN
{
	ab[1] = "s";
}
