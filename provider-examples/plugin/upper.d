/*
 * upper.d - the probes of upper.so, a plugin that host.c loads with
 * dlopen (provider-examples/plugin/upper.c).  They exist while the
 * plugin is loaded; a tracer attached to the file sees them in every
 * process that loads it, each time it is loaded.
 *
 *	dtrace -h -s upper.d -o upper.h
 *	dtrace -G -s upper.d -o upper-probes.o upper.o
 */
#pragma D attributes Evolving/Evolving/Common provider upper provider
#pragma D attributes Evolving/Evolving/Common provider upper args

provider upper {
	/* a word to transform, and its length */
	probe transform__start(const char *word, size_t len);
	/* the word and its result, or NULL when the buffer was too small */
	probe transform__done(const char *word, const char *result);
};
