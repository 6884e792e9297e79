/*
 * -Z (zdefs) lets a description match nothing; a sched probe is no
 * such description: DTrace would trace it, so it is refused still.
 */
#pragma D option zdefs

sched:::on-cpu
{
	@[execname] = count();
}
