/* The string functions as illumos DTrace computes them: basename and
 * dirname (basename(1) and dirname(1)), substr with negative indexes and
 * lengths, index and rindex with and without a position, strstr,
 * strtok going on with NULL, toupper, tolower, lltostr in several bases,
 * strtoll with a base. */
#pragma D option quiet

BEGIN
{
	printf("[%s] [%s] [%s] [%s] [%s] [%s]\n",
	    basename("/usr/lib/libc.so.6"), dirname("/usr/lib/libc.so.6"),
	    basename("/foo/bar/"), dirname("/foo/bar/"), basename(""),
	    dirname("foo"));
	printf("[%s] [%s] [%s] [%s]\n", basename("///"), dirname("///"),
	    dirname("/foo"), dirname("//a//b//"));
	printf("[%s] [%s] [%s] [%s]\n", substr("foobarbazbop", 3),
	    substr("foobarbazbop", -10), substr("foobarbazbop", 8, 20),
	    substr("foobarbazbop", 300));
	printf("[%s] [%s] [%s] [%s] [%s]\n", substr("foobarbazbop", 3, -1),
	    substr("foobarbazbop", 3, -4), substr("foobarbazbop", -10, -5),
	    substr("foobarbazbop", -24, 13), substr("abcde", -10));
	printf("%d %d %d %d %d %d\n", index("foofoofoo", "foo"),
	    rindex("foofoofoo", "foo"), index("foofoofoo", "foo", 4),
	    rindex("foofoofoo", "foo", 4), index("abc", "x"),
	    rindex("foo", ""));
	printf("%d %d %d\n", index("boofoofoo", "foo", -400),
	    rindex("boofoofoo", "foo", -1), rindex("foofoofoo", "foo", 0));
	printf("[%s] [%s]\n", strstr("hello world", "o w"),
	    strstr("abc", "x"));
	printf("[%s]", strtok("a,,b,c", ","));
	printf("[%s]", strtok(NULL, ","));
	printf("[%s]", strtok(NULL, ","));
	printf("[%s]\n", strtok(NULL, ","));
	printf("%s %s\n", toupper("MiXed 1"), tolower("MiXed 1"));
	printf("%s %s %s %s %s %s\n", lltostr(255, 16), lltostr(8, 8),
	    lltostr(5, 2), lltostr(-42), lltostr(0, 16), lltostr(35, 36));
	printf("%d %d %d %d %d %d\n", strtoll("123"), strtoll("-42"),
	    strtoll("ff", 16), strtoll("0x1F", 16), strtoll("777", 8),
	    strtoll("12abc"));
	exit(0);
}
