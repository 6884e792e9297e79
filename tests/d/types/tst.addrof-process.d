/*
 * & on a traced process's struct, typed from its debug information:
 * arg0 cast to a request_t * is never dereferenced in dtrace, and
 * &p->m is the process's own address of the member, arg0 plus the
 * member's offset (a nested member, an element of an array member, of
 * an array of arrays' row), what copyin() of that address would read.
 */
#pragma D option quiet

pid$target:a.out:tr_request:entry
{
	this->r = (request_t *)arg0;
	printf("%d %d %d %d %d\n", (long)&this->r->id - arg0,
	    (long)&this->r->hdr.ver - arg0, (long)&this->r->vals[2] - arg0,
	    (long)&this->r->tag[1] - arg0, (long)&this->r->next - arg0);
	printf("%d %d %d\n",
	    (long)&this->r->hdr.ver - arg0 ==
	    offsetof(struct request, hdr) + offsetof(struct req_hdr, ver),
	    (long)&this->r->vals[2] - arg0 ==
	    offsetof(struct request, vals) + 2 * sizeof (short),
	    (long)(&this->r->vals[2] + 1) - arg0 ==
	    offsetof(struct request, vals) + 3 * sizeof (short));
}
