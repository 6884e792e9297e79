/*
 * Under -C a message gives the script's own line: cpp's prelude of
 * line markers (<built-in>, <command-line>, stdc-predef.h) does not
 * shift it, nor do the directives it consumes.
 */
#define TOP	10
#define DEPTH	5

BEGIN
{
	trace(TOP);
	nosuchfunc(DEPTH);
}
