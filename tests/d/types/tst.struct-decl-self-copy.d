/*
 * One self-> struct variable copied whole into another (self->b =
 * self->a) in a clause of its own, which reads nothing but the two: the
 * generated BPF program does not take it (struct values live in user
 * space), so the copy is the struct's bytes, read later in another
 * clause (triggers/tr-calls: tr_int, tr_str, then tr_pair, per call).
 */
#pragma D option quiet

struct tr_pair {
	int a;
	short b;
	char c;
	char name[9];
	long long d;
};

self struct tr_pair a;
self struct tr_pair b;

pid$target:a.out:tr_int:entry
{
	self->b = self->a;
}

pid$target:a.out:tr_pair:entry
{
	self->a = *(struct tr_pair *)copyin(arg0, sizeof (struct tr_pair));
}

pid$target:a.out:tr_str:entry
{
	printf("%d %d %s\n", self->b.a, self->b.b, stringof(self->b.name));
}
