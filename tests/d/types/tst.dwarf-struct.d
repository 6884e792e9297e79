/*
 * The traced program's own types, from its debug information, used by
 * name without a declaration in the script (triggers/tr-types, built
 * with -g): struct request read through copyin()'s copy as the
 * program's compiler laid it out: a nested struct (hdr), a pointer to a
 * string (name), an enum member (kind), bit-fields (prio, delta
 * signed, urgent), an array (vals), a named union (u: its long long and
 * its bytes), an anonymous union's members (ai, as: request's own, as
 * C names them), a pointer to the struct itself (next: NULL only for
 * i = 0) and a char array (tag).  sizeof and offsetof are gcc's (96,
 * 88, 56 for the double D cannot read but can place).
 */
#pragma D option quiet

pid$target:a.out:tr_request:entry
{
	this->r = (struct request *)copyin(arg0, sizeof (struct request));
	printf("%d %s\n", this->r->id, copyinstr((uintptr_t)this->r->name));
	printf("hdr %x %d %d kind %d\n", this->r->hdr.magic,
	    this->r->hdr.ver, this->r->hdr.level, this->r->kind);
	printf("prio %d delta %d urgent %d\n", this->r->prio,
	    this->r->delta, this->r->urgent);
	printf("vals %d %d %d %d\n", this->r->vals[0], this->r->vals[1],
	    this->r->vals[2], this->r->vals[3]);
	printf("u %x b[0] %x b[7] %x ai %x as %d\n", this->r->u.l,
	    this->r->u.b[0], this->r->u.b[7], this->r->ai, this->r->as);
	printf("next %s tag %s\n", this->r->next ? "set" : "NULL",
	    stringof(this->r->tag));
}

END
{
	printf("%d %d %d %d %d\n", sizeof (struct request),
	    sizeof (struct req_hdr), sizeof (union req_val),
	    offsetof(struct request, tag), offsetof(struct request, ratio));
}
