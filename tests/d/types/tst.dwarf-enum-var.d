/*
 * Variables, members and keys of the traced program's enum type
 * (triggers/tr-types: enum req_kind, 4 bytes, signed: REQ_NEG = -3),
 * as of an enum the script declares: a global, a thread-local and a
 * clause-local of enum req_kind (scoped too), a member of a script's
 * struct laid out with it, an associative array keyed by it.  A value
 * stored is converted to the enum's 4 bytes, as C converts it.
 */
#pragma D option quiet

enum req_kind gk;
self enum a.out`req_kind sk;
this enum req_kind tk;
int n[enum req_kind];
struct pair {
	char c;
	enum req_kind k;
};

pid$target:a.out:tr_request:entry
{
	this->tk = ((request_t *)copyin(arg0, sizeof (request_t)))->kind;
	self->sk = this->tk == REQ_DEL ? REQ_NEG : this->tk;
	gk = 0x100000000 + this->tk;
	n[this->tk]++;
	printf("%d %d %d %d\n", this->tk, self->sk, gk, gk == this->tk);
}

END
{
	printf("%d %d %d\n", n[REQ_PUT], n[REQ_DEL], n[REQ_GET]);
	printf("%d %d\n", sizeof (struct pair), offsetof (struct pair, k));
}
