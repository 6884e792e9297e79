/* a cast to a type D does not know names it (was a bare "syntax error
 * near arg0"): kthread_t, a Solaris kernel type */
BEGIN
{
	self->t = (kthread_t)arg0;
}
