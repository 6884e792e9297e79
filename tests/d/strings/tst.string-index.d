/*
 * s[i] of a string is a char (D's string is a char array of strsize
 * bytes): the string's characters, then 0 up to the end of the array.
 * A name first used as a string scalar is indexed, not an associative
 * array.
 */
#pragma D option quiet
#pragma D option strsize=16

BEGIN
{
	s = "ABCDEFG";
	trace(s[1]);
	printf(" %c %c %d %d %d\n", s[0], s[6], s[7], s[8], s[15]);
	this->t = strjoin(s, "xyz");
	printf("%c%c\n", this->t[7], this->t[9]);
	self->u = "tls";
	printf("%c\n", self->u[2]);
	a["k"] = "hello";
	printf("%c\n", a["k"][4]);
	printf("%c\n", "literal"[3]);
	i = 2;
	printf("%c %d\n", s[i + 1], s[1] == 'B');
	b = "\377";
	printf("%d %d\n", b[0], (uint8_t)b[0]);
	@[s[2]] = count();
	exit(0);
}
