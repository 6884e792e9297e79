/* proc's thread probes are refused, with one of them named among others */
proc:::create,
proc:::lwp-create
{
	trace(pid);
}
