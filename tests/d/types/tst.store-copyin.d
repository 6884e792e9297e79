/*
 * A copyin()'d copy is scratch the clause may write, as DTrace's is:
 * the per-language scripts copy a name of a known length and end it
 * themselves (this->class = (char *)copyin(arg1, arg2 + 1);
 * this->class[arg2] = '\0';).  Here the trigger's tag "tN" is cut to
 * its first character, and its vals[] changed in the copy only: the
 * next hit reads the process's own values again.
 */
#pragma D option quiet

pid$target:a.out:tr_request:entry
{
	this->r = (request_t *)copyin(arg0, sizeof (request_t));
	this->t = (char *)this->r + offsetof(struct request, tag);
	this->t[1] = '\0';
	this->v = (short *)((char *)this->r + offsetof(struct request, vals));
	this->v[1] += 1000;
	printf("[%s] %d %d\n", stringof(this->t), this->v[0], this->v[1]);
}
