/*
 * The sched provider (the Solaris dispatcher's probes) is refused with
 * its reason, at the description, before the clause's args[]->pr_lwpid
 * (the DTrace book's qtime.d) would stop the compiler first.
 */
sched:::enqueue
{
	a[args[0]->pr_lwpid, args[1]->pr_pid, args[2]->cpu_id] = timestamp;
}
