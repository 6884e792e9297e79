/*
 * tr_conflict_t names a struct of another layout in triggers/tr-types
 * than in its library (err.D_TYPE_AMBIG.dwarf-typedef.d): the script's
 * own typedef of the name comes first, as DTrace's D container does,
 * and the programs' are not asked.
 */
#pragma D option quiet

typedef unsigned short tr_conflict_t;

BEGIN
{
	printf("%d %d\n", sizeof (tr_conflict_t), (tr_conflict_t)-1);
	exit(0);
}
