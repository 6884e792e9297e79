/* ----------
 * A provider shaped like a database server's: the argument types are
 * the server's own type names, turned into C types by #define, so the
 * file only compiles with -C.  Probes without arguments are written ().
 * Written for usdt-sdk's tests.
 * ----------
 */

/*
 * The server's type names.  bool is the server's, a char-sized flag.
 */
#define LocalTransactionId unsigned int
#define LWLockMode int
#define LOCKMODE int
#define BlockNumber unsigned int
#define Oid unsigned int
#define ForkNumber int
#define bool char

provider postgresql {
	probe transaction__start(LocalTransactionId);
	probe transaction__commit(LocalTransactionId);
	probe transaction__abort(LocalTransactionId);

	probe lwlock__acquire(const char *, LWLockMode);
	probe lwlock__wait__start(const char *, LWLockMode);
	probe lock__wait__start(unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, LOCKMODE);

	probe query__parse__start(const char *);
	probe query__plan__start();
	probe query__plan__done();
	probe query__execute__start();

	probe sort__start(int, bool, int, int, bool, int);
	probe sort__done(bool, long);

	probe buffer__read__start(ForkNumber, BlockNumber, Oid, Oid, Oid, int);
	probe buffer__read__done(ForkNumber, BlockNumber, Oid, Oid, Oid, int, bool);

	probe deadlock__found();
	probe wal__insert(unsigned char, unsigned char);
};
