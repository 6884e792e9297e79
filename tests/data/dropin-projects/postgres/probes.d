/*
 * The provider of the PostgreSQL-style project, read with -C as
 * PostgreSQL's src/backend/utils/probes.d is: its types are macros.
 */
#define TransactionId unsigned int

provider postgresql {
	probe query__start(char *query, int n);
	probe transaction__start(TransactionId xid);
};
