/*
 * l and ll take a value whose type is known only at run time (an
 * undeclared variable, arithmetic, a comparison): every integer is 64
 * bits wide here, so the conversion prints its whole value.  BEGIN's
 * arg0 and arg2 are 0.
 */
#pragma D option quiet

BEGIN
{
	self->ts = timestamp;
	printf("[%llu]\n", (timestamp - self->ts) / 1000000000000ULL);
	printf("[%lu]\n", timestamp - self->ts < 1000000000000ULL);
	this->x = arg0;
	printf("[%ld]\n", this->x);
	printf("[%lu]\n", (unsigned long)arg0 + 1);
	printf("[%ld %lld]\n", arg0 * 2, arg2);
	this->y = arg0 - 5;
	printf("[%ld] [%lu] [%lx] [%llX] [%lo]\n", this->y, this->y, this->y,
	    this->y, this->y);
	g = 7;
	printf("[%lld] [%lli] [%llu]\n", g, g ? -g : g, g * 2);
	@[arg0 + 3, this->y] = count();
	printa("[%lu] [%lld] [%@d]\n", @);
	exit(0);
}
