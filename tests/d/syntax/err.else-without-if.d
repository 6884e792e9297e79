/* An else must follow an if's body. */
BEGIN
{
	x = 1;
	else
		x = 2;
}
