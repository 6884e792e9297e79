/*
 * inline constants and expressions (issue 25: `inline int SCREEN = 21;`
 * was a syntax error): each use stands for the expression, converted to
 * the declared type as a cast converts.
 */
#pragma D option quiet

inline int SCREEN = 21;
inline string GREETING = "hello";
inline int8_t SMALL = 200;
inline int TWICE = SCREEN * 2;
inline uint32_t ALLONES = -1;

BEGIN
{
	printf("%d %s %d %d %u\n", SCREEN, GREETING, SMALL, TWICE, ALLONES);
	x[SCREEN] = GREETING;
	printf("%s %d\n", x[21], SCREEN > 20 ? TWICE : 0);
	exit(0);
}
