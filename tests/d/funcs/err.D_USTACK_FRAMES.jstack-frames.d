/* jstack()'s frames are a positive constant, as ustack()'s */
BEGIN
{
	@[jstack(0)] = count();
}
