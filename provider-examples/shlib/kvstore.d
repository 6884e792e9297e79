/*
 * kvstore.d - the probes of libkv.so, a small in-memory key-value store
 * (provider-examples/shlib/libkv.c).  The library has its own provider,
 * separate from the program that uses it (kvapp.d): each module gets its
 * own `dtrace -G` output, linked into that module only.
 *
 *	dtrace -h -s kvstore.d -o kvstore.h
 *	dtrace -G -s kvstore.d -o kvstore-probes.o libkv.o
 */
#pragma D attributes Evolving/Evolving/Common provider kvstore provider
#pragma D attributes Evolving/Evolving/Common provider kvstore args

struct kv;

provider kvstore {
	/* a lookup: the key, and the value's length or -1 when absent */
	probe get(const char *key, long vlen);
	/* a store: key, value, 1 when it replaced an older value */
	probe put(const char *key, const char *value, int replaced);
	/* a removal: key, 1 when the key was there */
	probe del(const char *key, int found);
	/*
	 * The table grew: the store, and the old and new bucket counts.
	 * The translated list gives DTrace consumers only the counts (the
	 * store's address means nothing to them); native consumers such as
	 * bpftrace read all three.
	 */
	probe resize(struct kv *kv, size_t from, size_t to) :
	    (size_t from, size_t to);
};
