/* ++ and -- (prefix and postfix) and the compound assignments on
 * globals, self->, this-> and associative array elements; ?: and the
 * short-circuit && and || (the division by zero is never evaluated),
 * ^^ (logical exclusive or). */
#pragma D option quiet

int a[int];

BEGIN
{
	a[1] = 1;
	a[1]++;
	++a[1];
	a[1] -= 1;
	printf("%d %d ", a[1]--, a[1]);
	self->s = 10;
	self->s++;
	--self->s;
	self->s <<= 2;
	this->t = 3;
	this->t *= 3;
	printf("%d %d %d\n", this->t++, this->t, self->s);
	n = 7;
	n %= 4;
	n |= 8;
	n &= 10;
	n ^= 1;
	n >>= 1;
	n /= 2;
	n += 40;
	printf("%d\n", n);
	z = 0; /* 1 / 0 itself does not compile (D_DIV_ZERO) */
	printf("%s %d %d\n", n > 1 ? "t" : "f", 0 && (1 / z), 1 || (1 / z));
	printf("%d %d %d\n", 1 ^^ 0, 1 ^^ 1, 0 ^^ 0);
	exit(0);
}
