/* cwd, the process's working directory at the hit, is not recorded */
BEGIN
{
	trace(cwd);
}
