/*
 * myapp.d - the probes of a small query server (provider-examples/myapp.c).
 *
 *	dtrace -h -s myapp.d -o myapp.h		header for the C code
 */
#pragma D attributes Evolving/Evolving/Common provider myapp provider
#pragma D attributes Evolving/Evolving/Common provider myapp args

typedef unsigned int query_id_t;
struct request;

provider myapp {
	/* a query arrives: its id and text */
	probe query__start(query_id_t id, const char *text);
	/* a query ends: id, rows returned, status (0 = ok) */
	probe query__done(query_id_t id, long rows, int status);
	/* the request object, for consumers that know its layout */
	probe request(struct request *req);
	probe tick();
};
