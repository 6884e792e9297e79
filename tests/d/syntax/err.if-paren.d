/* The condition of an if is in parentheses. */
BEGIN
{
	if x > 1 {
		trace(x);
	}
}
