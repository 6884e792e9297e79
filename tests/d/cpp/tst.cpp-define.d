/* -C: #define'd constants and a macro with arguments, as the
 * DTraceToolkit's -C scripts use them */
#pragma D option quiet
#define TOP	10
#define TWICE(x)	((x) * 2)

BEGIN
{
	printf("%d %d\n", TOP, TWICE(TOP));
	exit(0);
}
