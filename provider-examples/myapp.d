/*
 * myapp.d - the probes of a small query server (provider-examples/myapp.c).
 *
 *	dtrace -h -s myapp.d -o myapp.h			header for the C code
 *	dtrace -G -s myapp.d -o myapp-probes.o myapp.o	after cc -c
 *
 * The stability attributes say what a consumer may rely on: the probe
 * names and arguments are Evolving (they may change between releases,
 * with notice); the functions and module they sit in are not promised.
 */
#pragma D attributes Evolving/Evolving/Common provider myapp provider
#pragma D attributes Evolving/Evolving/Common provider myapp args

typedef unsigned int query_id_t;
struct request;

provider myapp {
	/* a client connects: connection number and peer address */
	probe conn__open(int conn, const char *peer);
	/* the connection ends after serving this many queries */
	probe conn__close(int conn, unsigned int queries);
	/*
	 * A query arrives: its id and text.  DTrace consumers see the text
	 * as a D string (the translated list after ':'); the native list is
	 * what the program passes and what bpftrace, perf and gdb read.
	 */
	probe query__start(query_id_t id, const char *text) :
	    (query_id_t id, string text);
	/* a query ends: id, rows returned, status (0 = ok, 1 = refused) */
	probe query__done(query_id_t id, long rows, int status);
	/* the query plan, a string built only while this probe is traced */
	probe query__plan(query_id_t id, const char *plan);
	/* the request object, for consumers that know its layout */
	probe request(struct request *req);
	/* once per turn of the server loop */
	probe tick();
};
