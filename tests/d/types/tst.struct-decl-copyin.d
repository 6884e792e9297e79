/*
 * Declared struct variables filled from the traced process (triggers/
 * tr-calls' struct tr_pair, each call's own): x = *(struct T *)copyin(
 * arg0, sizeof (struct T)) copies the whole struct into a self-> and a
 * global variable, whose members then read the same in a later clause
 * and a later firing, after the scratch copy is gone; a member written
 * in the variable changes it and not the next copy; an associative
 * array of structs counts calls per function as the D reference's
 * rwinfo.d does.
 */
#pragma D option quiet

struct tr_pair {
	int a;
	short b;
	char c;
	char name[9];
	long long d;
};

struct callinfo {
	uint64_t calls;
	int64_t maxarg;
};

self struct tr_pair last;
struct tr_pair prev;
struct callinfo i[string];

pid$target:a.out:tr_int:entry,
pid$target:a.out:tr_str:entry
{
	i[probefunc].calls++;
	i[probefunc].maxarg = (int)arg0 > i[probefunc].maxarg ?
	    (int)arg0 : i[probefunc].maxarg;
}

pid$target:a.out:tr_pair:entry
{
	printf("prev %d %s | ", prev.a, stringof(prev.name));
	self->last = *(struct tr_pair *)copyin(arg0,
	    sizeof (struct tr_pair));
	prev = self->last;
	prev.name[0] = 'P';
	prev.a += 100;
}

pid$target:a.out:tr_pair:entry
{
	printf("last %d %d %c %s %x | prev %d %s\n", self->last.a,
	    self->last.b, self->last.c, stringof(self->last.name),
	    self->last.d >> 32, prev.a, stringof(prev.name));
}

END
{
	printf("tr_int %d %d tr_str %d %d\n", i["tr_int"].calls,
	    i["tr_int"].maxarg, i["tr_str"].calls, i["tr_str"].maxarg);
}
