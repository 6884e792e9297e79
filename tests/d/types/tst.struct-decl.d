/*
 * Declared variables of struct and union types, as the D reference's
 * "Structs and Unions" chapter declares and uses them: a global, a
 * self-> and a this-> one, a union, and an associative array of structs
 * (its rwinfo.d's struct callinfo i[string]); members assigned, read,
 * incremented and assigned with op=, a bit-field and an array member's
 * elements written, a never-assigned one reading as zeros, whole
 * structs copied from a pointer's target and from another variable,
 * and sizeof of the variables (their types').
 */
#pragma D option quiet

struct callinfo {
	uint64_t ts;
	uint64_t elapsed;
	uint64_t calls;
	size_t maxbytes;
};

struct flags {
	int id;
	unsigned int lo : 3;
	int hi : 4;
	short v[3];
	struct callinfo ci;
};

union word {
	int i;
	unsigned char c[4];
};

struct callinfo i[string];
struct flags g;
self struct flags s;
this struct flags t;
union word w;
struct flags unset;

BEGIN
{
	g.id = 7;
	g.id++;
	++g.id;
	g.id *= 3;
	g.id -= 1;
	g.lo = 13;	/* 3 bits: 5 */
	g.hi = -3;
	g.v[0] = 100;
	g.v[2] = -1;
	g.v[2] += 5;
	g.ci.calls = 9;
	g.ci.calls--;
	printf("g %d %d %d %d %d %d %d\n", g.id, g.lo, g.hi, g.v[0], g.v[1],
	    g.v[2], g.ci.calls);
	printf("value %d %d\n", g.lo = 9, g.hi = 15);

	self->s = g;
	self->s.id = 1000;
	this->t = self->s;
	this->t.v[1] = 2;
	printf("self %d %d %d this %d %d %d\n", self->s.id, self->s.v[0],
	    self->s.v[1], this->t.id, this->t.v[1], this->t.ci.calls);

	w.i = 0x11223344;
	printf("union %x %x %x\n", w.c[0], w.c[3], w.i);
	w.c[3] = 0xaa;
	printf("union %x\n", w.i);

	i["read"].ts = 10;
	i["read"].calls++;
	i["read"].calls++;
	i["write"].calls++;
	i["write"].maxbytes = 512 > i["write"].maxbytes ? 512 :
	    i["write"].maxbytes;
	i["write"].maxbytes = 64 > i["write"].maxbytes ? 64 :
	    i["write"].maxbytes;
	printf("i %d %d %d %d %d\n", i["read"].ts, i["read"].calls,
	    i["write"].calls, i["write"].maxbytes, i["none"].calls);

	this->p = (struct flags *)alloca(sizeof (struct flags));
	this->p->id = 42;
	this->p->v[1] = 3;
	this->p->hi = -1;
	g = *this->p;
	printf("copy %d %d %d %d %d\n", g.id, g.v[0], g.v[1], g.hi,
	    g.ci.calls);
	printf("unset %d %d %d\n", unset.id, unset.v[2], unset.ci.calls);
	printf("sizeof %d %d %d %d\n", sizeof (g), sizeof (self->s),
	    sizeof (w), sizeof (struct callinfo));
}

BEGIN
{
	printf("later self %d this %d g %d i %d\n", self->s.id, this->t.v[1],
	    g.id, i["read"].calls);
	exit(0);
}
