/*
 * s[i] = c writes a character of a string variable (global, self->,
 * this->), as DTrace's strings are char arrays: the idiom that cuts a
 * long string (s[57] = '.'; ... s[60] = 0;).  A character past the end
 * changes nothing; one at the end that is not 0 would bring in bytes
 * DTrace leaves unspecified: an illegal operation (fault 3).
 */
#pragma D option quiet
BEGIN
{
	this->q = "select * from a_rather_long_table";
	this->q[9] = '.';
	this->q[10] = '.';
	this->q[11] = 0;
	self->s = "abc";
	self->s[0] = 'X';
	s = "hello";
	s[40] = 'z';
	s[5] = 0;
	printf("[%s] [%s] [%s] %d\n", this->q, self->s, s, strlen(this->q));
}
BEGIN { t = "ab"; t[2] = 'c'; printf("never\n"); }
BEGIN { exit(0); }
ERROR { printf("fault %d\n", arg4); }
