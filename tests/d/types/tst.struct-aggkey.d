/*
 * Members read through copyin()'s copy of tr-calls' struct tr_pair as
 * aggregation keys and values, with the pointer kept in this-> by the
 * same clause (the keys are checked before the clause's assignments
 * are): ->, (*p)., a char array member as a string and indexed; a
 * string indexed by a member as a key.
 */
#pragma D option quiet

struct tr_pair {
	int a;
	short b;
	char c;
	char name[9];
	long long d;
};

pid$target:a.out:tr_pair:entry
{
	this->p = (struct tr_pair *)copyin(arg0, sizeof (struct tr_pair));
	@a[this->p->a] = count();
	@n[stringof(this->p->name)] = sum(this->p->b);
	@d[(*this->p).d, this->p->name[4]] = max(this->p->a);
	@c[this->p->c] = count();
	this->s = "xyz";
	@s[this->s[this->p->a]] = count();
}
