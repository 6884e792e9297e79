/*
 * struct tr_units is declared one way in triggers/tr-types.c and
 * another in its second unit, tr-types-unit2.c: one object, two
 * layouts of one name, and no scope can choose between units, so D
 * refuses it.
 */
BEGIN
{
	trace(sizeof (struct a.out`tr_units));
}
