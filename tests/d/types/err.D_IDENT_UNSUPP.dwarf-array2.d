/*
 * struct request's int grid[2][3] (triggers/tr-types): arrays of
 * arrays are not read.
 */
pid$target:a.out:tr_request:entry
{
	this->r = (struct request *)copyin(arg0, sizeof (struct request));
	trace(this->r->grid[1]);
}
