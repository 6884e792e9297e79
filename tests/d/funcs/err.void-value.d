/* bcopy(), copyinto(), copyout() and copyoutstr() have no value. */
BEGIN
{
	x = bcopy(alloca(1), alloca(1), 1);
}
