/*
 * struct tr_pair unscoped, with triggers/tr-nodebug (tr-calls stripped
 * of its debug information) traced: the script does not declare it and
 * no traced object's debug information does, so it is incomplete, and
 * the error names the object that has none.
 */
pid$target:a.out:tr_pair:entry
{
	this->p = (struct tr_pair *)copyin(arg0, 8);
	trace(this->p->a);
}
