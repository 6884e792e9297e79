/*
 * A string compared with NULL (or 0), as Ruby's test/dtrace writes
 * strstr(copyinstr(arg0), "Foo") != NULL: DTrace's string comparison
 * reads a null string as "", so "" == NULL and strstr() not finding its
 * needle is NULL.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d\n", strstr("Foo::bar", "Foo") != NULL,
	    strstr("Bar::baz", "Foo") != NULL);
	printf("%d %d %d\n", "" == NULL, NULL == "x", "x" != 0);
	exit(0);
}
