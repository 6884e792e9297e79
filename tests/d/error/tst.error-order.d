/* A fault ends its clause only: ERROR's clauses run at once, in the
 * faulting firing's context (pid, execname), with clause-local
 * variables of their own, and then the probe's later clauses go on
 * with theirs. */
#pragma D option quiet

BEGIN { this->n = 1; printf("clause 1 this->n %d\n", this->n); }
BEGIN { this->n = 2; x = 0; y = 1 / x; printf("not reached\n"); }

ERROR
{
	printf("ERROR this->n %d, same pid %d, execname %s\n", this->n,
	    pid == $pid, execname);
	this->n = 99;
}

dtrace:::ERROR { printf("second ERROR clause this->n %d\n", this->n); }

BEGIN { printf("clause 3 this->n %d\n", this->n); exit(0); }
