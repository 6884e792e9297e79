/* op= on a string's character is refused: assign it */
BEGIN
{
	s = "x";
	s[0] += 1;
}
