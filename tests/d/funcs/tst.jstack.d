/*
 * jstack() is ustack() with the frames a process's ustack helper
 * annotates; no helper is run here (none is registered: a DOF's
 * helper is not loaded), so at real hits of triggers/tr-calls it gives
 * what DTrace's jstack() gives in a process without a helper: the
 * frames ustack() gives, at most jstackframes (50) without an
 * argument.  Its second argument, the helper's string room, is
 * accepted and unused, as ustack()'s is.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	printf("%d %d %d %d %d\n", jstack() == ustack(), jstack(1) == ustack(1),
	    jstack(2, 512) == ustack(2), jstack(1) != ustack(2),
	    jstack(50) == jstack());
	printf("%k\n", jstack(1));
	@[jstack(1)] = count();
}
