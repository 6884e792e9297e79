/*
 * int ** and short ** point to different types: q - p of them is
 * D_OP_INCOMPAT as of int * and short * (both were taken as pointers
 * to 8 bytes and subtracted).
 */
BEGIN
{
	this->p = (int **)alloca(16);
	this->q = (short **)alloca(16);
	trace(this->q - this->p);
}
