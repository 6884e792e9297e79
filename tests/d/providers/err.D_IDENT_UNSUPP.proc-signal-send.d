/*
 * proc:::signal-send (its arguments the receiver's lwpsinfo_t and
 * psinfo_t, the DTrace book's sigdist.d) is refused with its reason,
 * at the description, not at args[1]->pr_fname.
 */
proc:::signal-send
{
	@[execname, stringof(args[1]->pr_fname), args[2]] = count();
}
