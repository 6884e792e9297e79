/* the message names the description, the provider and what it has */
BEGIN
{
	exit(0);
}

proc:vmlinux::signal-send,
proc:::exit
{
	trace(pid);
}
