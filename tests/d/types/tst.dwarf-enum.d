/*
 * The traced program's enums (triggers/tr-types): an enumerator no
 * script variable takes is a constant, as in C (REQ_DEL in a predicate
 * on a member of enum req_kind, negative REQ_NEG); TR_HIGH is declared
 * with one value by the program and its library (one constant);
 * MODE_CLASH with two, named with the object's scope
 * (a.out`MODE_CLASH, libtr-types.so`MODE_CLASH); a variable the script
 * assigns keeps its name (REQ_GET here is the script's, 42); casts to
 * and sizeof of an enum type.
 */
#pragma D option quiet

BEGIN
{
	REQ_GET = 42;
}

pid$target:a.out:tr_request:entry
/((request_t *)copyin(arg0, sizeof (request_t)))->kind == REQ_DEL/
{
	printf("del %d\n", ((request_t *)copyin(arg0, sizeof (request_t)))->id);
}

END
{
	printf("%d %d %d %d %d\n", REQ_GET, REQ_PUT, REQ_DEL, REQ_NEG,
	    TR_HIGH);
	printf("%d %d %d\n", a.out`MODE_CLASH, libtr-types.so`MODE_CLASH,
	    (a.out`REQ_PUT + 1) * 10);
	printf("%d %d\n", (enum req_kind)-1, sizeof (enum tr_level));
}
