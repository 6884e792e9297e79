/* A variable keeps the kind of its first assignment. */
BEGIN
{
	x = "string";
	x = 1;
}
