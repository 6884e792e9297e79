/*
 * The reference's way to build a buffer to write: alloca() and bcopy()
 * (or copyinto()), then copyout() under -w.  DTrace writes before the
 * probe returns; here the clause runs in dtrace after the hit while the
 * thread goes on, and the BPF program, which writes at the hit, does
 * not have bytes the clause computes; only a -c or -p process can be
 * held at the probe while dtrace runs the clause and writes
 * (tests/run-copyout.sh), and this run has none.  Refused, the message
 * naming the part at fault: the source.
 */
BEGIN
{
	this->buf = (char *)alloca(4);
	bcopy("abc", this->buf, 4);
	copyout(this->buf, arg0, 4);
	exit(0);
}
