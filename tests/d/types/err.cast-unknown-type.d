/* a cast to a type D does not know names it (was a bare "syntax error
 * near arg0"): boolean_t, as the DTraceToolkit's j_calldist.d casts */
BEGIN
{
	self->full = (boolean_t)arg0;
}
