/* copyout() of bytes read at an argument, of a size the clause
 * computes: the write at the hit has a fixed length; refused naming the
 * size */
BEGIN
{
	copyout(copyin(arg0, 8), arg1, arg2);
	exit(0);
}
