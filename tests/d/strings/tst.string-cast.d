/*
 * The Dynamic Tracing Guide's "String Conversion" (Strings): an
 * expression is converted to a string by a cast or by the stringof
 * operator, equal in meaning, stringof binding as tightly as a cast with
 * its parentheses optional:
 *
 *	s = (string) expression		s = stringof ( expression )
 *
 * (string) was a syntax error ("string is not a type name"), stringof
 * without parentheses one too.
 */
#pragma D option quiet

BEGIN
{
	s = (string)123;
	t = stringof(123);
	printf("%s %s %d\n", s, t, s == t);
	printf("%s|%s|%s|%s\n", (string)-5, stringof 42, (string)"str",
	    stringof "op");
	printf("%d %d\n", strlen((string)12345), strlen(stringof 1234));
	this->p = (char *)alloca(4);
	this->p[0] = 'h';
	this->p[1] = 'i';
	this->p[2] = '\0';
	printf("%s %s %s\n", (string)this->p, stringof this->p,
	    stringof(this->p));
	exit(0);
}
