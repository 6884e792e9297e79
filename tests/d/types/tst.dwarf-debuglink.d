/*
 * triggers/tr-debuglink is tr-types with its debug information moved to
 * a separate file (tr-debuglink.debug, named by its .gnu_debuglink), as
 * distributions ship programs: the types come from that file, found as
 * the stacks find it.  Without it the program has no types at all
 * (err.D_TYPE_SCOPE.dwarf-stripped.d).
 */
#pragma D option quiet

pid$target:a.out:tr_request:entry
{
	this->r = (request_t *)copyin(arg0, sizeof (struct a.out`request));
	printf("%d %s %d %d\n", this->r->id,
	    copyinstr((uintptr_t)this->r->name), this->r->delta,
	    this->r->kind == REQ_DEL);
}
