/* a clause-local variable is a DTrace object too: no address */
BEGIN
{
	this->n = 1;
	trace((long)&this->n);
}
