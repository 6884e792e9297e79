/*
 * Thread-local associative arrays (issue 25: `self->exclude[self->depth]
 * = 0` was a syntax error): keyed like global ones, one per thread
 * (triggers/tr-threads: two threads one after the other, each nesting
 * tr_enter()/tr_leave() three deep).  The first thread leaves
 * self->d[2] set; the second does not see it.
 */
#pragma D option quiet

pid$target:a.out:tr_enter:entry
/arg0 == 0/
{
	printf("left by another thread: %d\n", self->d[2]);
}

pid$target:a.out:tr_enter:entry
{
	self->depth++;
	self->d[arg0] = arg0 + 1;
	self->name[arg0, "depth"] = arg0 == 0 ? "outer" : "inner";
	self->exclude[self->depth] = 0;
}

pid$target:a.out:tr_leave:entry
{
	@sum[arg0, self->name[arg0, "depth"]] = sum(self->d[arg0]);
	self->depth--;
}

pid$target:a.out:tr_leave:entry
/arg0 != 2/
{
	self->d[arg0] = 0;
	self->name[arg0, "depth"] = 0;
}
