/* setopt( ) takes string constants. */
BEGIN
{
	setopt(probename);
}
