/*
 * ?: of two integers of known, different types has the type C's usual
 * conversions give them, as DTrace's dt_cook_op3() promotes its operands
 * (check.c; run.c's tern_type()): 1 ? -1 : 0u is an unsigned int, so
 * greater than 0 and traced as 4294967295 (an int, -1, before); the
 * branch's 64 bits are kept, as a register's.  Branches of one type,
 * or of a type not known before run time (an undeclared variable),
 * keep the branch's own.
 */
#pragma D option quiet

BEGIN
{
	trace(1 ? -1 : 0u); printf("\n");		/* unsigned int */
	printf("%d\n", (1 ? -1 : 0u) > 0);		/* 1 */
	printf("%d\n", (0 ? 1 : (char)-1) < 0);	/* int: 1 */
	printf("%d\n", (1 ? (uint8_t)200 : (int8_t)0) > 100);	/* int */
	printf("%d\n", (1 ? -1 : 0ul) > 0);		/* uint64_t: 1 */
	printf("%d\n", (1 ? -1 : 0) > 0);		/* int: 0 */
	x = -1;
	printf("%d\n", (1 ? x : 0u) > 0);		/* x's own: 0 */
	this->t = 1 ? -1 : 0u;
	trace(this->t); printf("\n");
	exit(0);
}
