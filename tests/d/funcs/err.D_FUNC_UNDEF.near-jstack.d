/* a name DTrace does not define either stays D_FUNC_UNDEF */
BEGIN
{
	jstacks();
}
