/*
 * struct request's double member (triggers/tr-types' debug information
 * places it, offsetof finds it): D has no floating point to read it as.
 */
pid$target:a.out:tr_request:entry
{
	this->r = (struct request *)copyin(arg0, sizeof (struct request));
	trace(this->r->ratio);
}
