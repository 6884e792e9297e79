/* Stores through a pointer into scratch: *p = v, p[i] = v, op=, ++ and
 * -- write alloca()'s bytes as C would (the pointee's size and sign:
 * 255 + 1 in a uint8_t is 0, 300 is 44), and the assignment's value is
 * the value stored; a store outside this clause's scratch (past the
 * buffer, or a pointer a variable kept from another clause) is an
 * invalid address and ends the clause. */
#pragma D option quiet

/* the faulting addresses are dtrace's: standard error is not compared */
ERROR { printf("epid %d action %d fault %d\n", arg1, arg2, arg4); }

BEGIN
{
	this->s = (char *)alloca(4);
	this->s[0] = 'h';
	this->s[1] = 'i';
	this->q = (int *)alloca(8);
	*this->q = 5;
	this->q[0]++;
	this->a = this->q[0]++;
	this->b = ++this->q[1];
	(*this->q)--;
	this->q[1] *= -3;
	this->c = (uint8_t *)alloca(2);
	this->c[0] = 255;
	this->c[0]++;
	this->d = (this->c[1] = 300);
	printf("%s %d %d %d %d %d %d\n", stringof(this->s), this->q[0],
	    this->a, this->b, this->q[1], this->c[0], this->d);
	kept = (int *)alloca(4);
}

BEGIN { this->p = (int *)alloca(4); this->p[1] = 1; printf("never\n"); }
BEGIN { *kept = 1; printf("never\n"); }
BEGIN { exit(0); }
