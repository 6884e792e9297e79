/*
 * A self-> struct variable's member: only a global struct or array
 * variable has storage a pointer may name here (tst.addrof-var-*.d); a
 * thread-local one's is made and dropped with its thread, so a pointer
 * kept past that would name nothing, and & refuses it with the reason.
 */
struct s {
	int a;
};
self struct s v;

BEGIN
{
	trace((long)&self->v.a);
}
