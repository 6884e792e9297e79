/*
 * A typedef name, with triggers/tr-nodebug (tr-calls stripped of its
 * debug information) traced: no object declares tr_pair_t, so the cast
 * is a syntax error, and the error says no type of that name was found
 * and that the program has no debug information (tr-nodebug's own
 * types are not read, whatever it declares).
 */
pid$target:a.out:tr_pair:entry
{
	this->p = (tr_pair_t *)copyin(arg0, 8);
	trace(this->p->a);
}
