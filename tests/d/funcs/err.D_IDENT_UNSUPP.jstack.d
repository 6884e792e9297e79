/* jstack( ) is refused with its reason (no ustack helper annotates
 * frames here), as py_profile.d and py_mallocstk.d call it */
BEGIN
{
	@[jstack(10)] = count();
}
