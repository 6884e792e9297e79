/*
 * The traced program's typedef names and enums (triggers/tr-types):
 * request_t (a struct), request_p (a pointer to one: a cast needs no
 * '*'), req_id_t (unsigned int: it converts as C converts), with and
 * without the object's scope (a.out`request_t, const too); enum
 * req_kind's size; struct tr_point, which the program and its library
 * libtr-types.so both declare the same way (one type, no ambiguity);
 * and struct tr_conflict and tr_conflict_t, which they declare
 * differently, each object's own named with DTrace's scope: struct
 * a.out`tr_conflict, struct libtr-types.so`tr_conflict,
 * libtr-types.so`tr_conflict_t.
 */
#pragma D option quiet

pid$target:a.out:tr_request:entry
{
	this->t = (request_t *)copyin(arg0, sizeof (request_t));
	this->p = (request_p)copyin(arg0, sizeof (a.out`request_t));
	this->a = (const a.out`request_t *)this->p;
	printf("%d %d %d %s\n", this->t->id, this->p->hdr.ver,
	    this->a->kind, stringof(this->a->tag));
	printf("%d %d\n", (req_id_t)-1 > 0, (req_id_t)this->t->hdr.level);
}

pid$target:a.out:tr_point:entry
{
	this->pt = (struct tr_point *)copyin(arg0, sizeof (struct tr_point));
	printf("point %d %d\n", this->pt->x, this->pt->y);
}

END
{
	printf("%d %d %d %d\n", sizeof (request_p), sizeof (req_id_t),
	    sizeof (enum req_kind), sizeof (enum a.out`req_kind));
	printf("%d %d %d %d\n", sizeof (struct a.out`tr_conflict),
	    sizeof (struct libtr-types.so`tr_conflict),
	    offsetof(struct libtr-types.so`tr_conflict, narrow),
	    sizeof (libtr-types.so`tr_conflict_t));
}
