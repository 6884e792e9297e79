/*
 * -x jstackframes sets the frames of jstack() without an argument, as
 * ustackframes does ustack()'s; jstackstrsize (a helper's string room)
 * is accepted, and no helper runs.  tr_int is called from main, so its
 * stack has more than one frame.
 */
#pragma D option quiet
#pragma D option jstackframes=1
#pragma D option jstackstrsize=1024

pid$target:a.out:tr_int:entry
/arg0 == 1/
{
	printf("%d %d %d\n", jstack() == ustack(1), jstack() != ustack(2),
	    jstack() == jstack(1));
	trace(jstack());
}
