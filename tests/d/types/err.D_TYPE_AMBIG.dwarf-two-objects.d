/*
 * struct tr_conflict is declared one way by triggers/tr-types and
 * another by its library libtr-types.so: without an object's scope
 * (struct a.out`tr_conflict) D cannot tell which is meant, and refuses
 * rather than guess.
 */
pid$target:a.out:tr_point:entry
{
	this->c = (struct tr_conflict *)copyin(arg0, 8);
}
