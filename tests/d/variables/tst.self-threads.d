/*
 * self-> variables on real threads (triggers/tr-threads: two threads,
 * one after the other, each nesting tr_enter() three deep): each thread
 * starts from 0, so the second counts 1, 2, 3 again, and a value one
 * thread left (depth 1 after its first tr_leave) is not the next one's.
 */
#pragma D option quiet

pid$target:a.out:tr_enter:entry
{
	self->depth++;
	printf("enter %d: depth %d\n", arg0, self->depth);
}

pid$target:a.out:tr_leave:entry
/arg0 != 0/
{
	self->depth--;
}

pid$target:a.out:tr_leave:entry
/arg0 == 0/
{
	@left["depth left at the outermost tr_leave"] = sum(self->depth);
}
