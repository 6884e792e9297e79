/* SPDX-License-Identifier: MIT */
/*
 * prov.h - the provider compiler: D provider definitions (.d files) read
 * into a model that every part of usdt-sdk shares.
 *
 * A provider file declares probes:
 *
 *	#pragma D attributes Evolving/Evolving/Common provider myapp provider
 *	typedef unsigned int Oid;
 *	struct conn;
 *	provider myapp {
 *		probe query__start(const char *, int);
 *		probe query__done(const char *q, long rows) : (string q, long rows);
 *	};
 *
 * prov_parse_file() optionally runs the C preprocessor over the file (-C),
 * then lexes and parses it.  The result holds, per probe, the native
 * argument list (what the application passes; it becomes the header's
 * prototype and the stapsdt argument specs) and the translated list (what
 * consumers see; it goes into the DOF as xargv with an argument map).
 *
 * Every argument carries a type model: its size, signedness and whether it
 * is a pointer or a string, plus two spellings: the D spelling as written
 * (kept for the DOF) and a C spelling for the generated header, where
 * typedefs declared in the provider file are expanded, so the header never
 * depends on declarations that only the .d file has.
 *
 * D clauses (`BEGIN { }`, `syscall::read:entry /pid == 1/ { ... }`) may
 * appear in a file: configure scripts feed `dtrace -G -s` a script holding
 * only `BEGIN{}`.  They are skipped and counted, never compiled.
 *
 * Errors: functions return 0 or a negative errno and fill a struct
 * prov_diag with the file, line and column of the fault, a message and
 * where useful a hint.  No output is ever half written by this code.
 */
#ifndef USDT_PROV_H
#define USDT_PROV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "usdt/dof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of the DOF (sdk/include/usdt/dof.h), terminating NUL included. */
#define PROV_NAME_MAX		DTRACE_PROVNAMELEN /* pid suffix included */
#define PROV_PROBE_NAME_MAX	DTRACE_NAMELEN	/* public probe name */
#define PROV_TYPE_NAME_MAX	DTRACE_ARGTYPELEN /* argument type string */
#define PROV_ARGS_MAX		12	/* arguments per probe (stapsdt, SDT) */
/* Room left for the pid that consumers append to the provider name. */
#define PROV_PID_DIGITS		10

/* Stability levels and dependency classes of #pragma D attributes. */
enum prov_stability {
	PROV_STAB_INTERNAL,
	PROV_STAB_PRIVATE,
	PROV_STAB_OBSOLETE,
	PROV_STAB_EXTERNAL,
	PROV_STAB_UNSTABLE,
	PROV_STAB_EVOLVING,
	PROV_STAB_STABLE,
	PROV_STAB_STANDARD,
	PROV_STAB_MAX = PROV_STAB_STANDARD
};

enum prov_class {
	PROV_CLASS_UNKNOWN,
	PROV_CLASS_CPU,
	PROV_CLASS_PLATFORM,
	PROV_CLASS_GROUP,
	PROV_CLASS_ISA,
	PROV_CLASS_COMMON,
	PROV_CLASS_MAX = PROV_CLASS_COMMON
};

/* The five attribute sets of a provider, in dof_provider_t order. */
enum prov_attr_which {
	PROV_ATTR_PROVIDER,
	PROV_ATTR_MODULE,
	PROV_ATTR_FUNCTION,
	PROV_ATTR_NAME,
	PROV_ATTR_ARGS,
	PROV_ATTR_CNT
};

struct prov_attr {
	uint8_t name;	/* enum prov_stability of identifier names */
	uint8_t data;	/* enum prov_stability of data semantics */
	uint8_t dclass;	/* enum prov_class */
};

/* What a type is, as far as probes care. */
enum prov_kind {
	PROV_K_INT,	/* any C integer type, enums, _Bool */
	PROV_K_PTR,	/* any pointer, D string included */
	PROV_K_FLOAT,	/* float, double, long double: never an argument */
	PROV_K_STRUCT,	/* struct or union by value: never an argument */
	PROV_K_VOID,	/* only valid as `void` parameter list or under a '*' */
};

/* Which system header declares a well-known typedef name. */
enum prov_sysinc {
	PROV_INC_NONE,
	PROV_INC_STDINT,	/* <stdint.h> */
	PROV_INC_SYSTYPES,	/* <sys/types.h> */
	PROV_INC_STDDEF,	/* <stddef.h> */
};

struct prov_type {
	char *dname;		/* D spelling, normalised: "const char *" */
	char *cname;		/* C spelling for headers, typedefs expanded */
	enum prov_kind kind;
	unsigned size;		/* bytes on LP64 x86-64 */
	bool is_signed;
	bool is_string;		/* D string, or a pointer to plain char */
	bool is_enum;		/* an enum (passed as int), not a pointer */
	enum prov_sysinc inc;	/* header cname needs, PROV_INC_NONE if any */
	char *tag;		/* struct/union tag a pointer refers to, or NULL */
	bool tag_is_union;
};

struct prov_arg {
	char *name;		/* parameter name if written, else NULL */
	struct prov_type type;
};

struct prov_probe {
	char *name;		/* as declared: "query__start" */
	char *pubname;		/* public name: "query-start" */
	struct prov_arg *nargv;	/* native arguments */
	unsigned nargc;
	struct prov_arg *xargv;	/* translated arguments (== native if none) */
	unsigned xargc;
	uint8_t *argmap;	/* xargc entries: native index of each xarg */
	bool has_xargs;		/* a `: (...)` list was written */
	char *file;		/* where it was declared (after cpp) */
	unsigned line, col;
};

struct prov_provider {
	char *name;
	struct prov_attr attr[PROV_ATTR_CNT];
	struct prov_probe *probes;
	unsigned probe_cnt;
	char *file;
	unsigned line, col;
};

struct prov_file {
	char *path;			/* the script as named by the user */
	struct prov_provider *providers;
	unsigned provider_cnt;
	unsigned clause_cnt;		/* D clauses skipped */
	char **warnings;		/* accepted, but worth saying */
	unsigned warning_cnt;
	struct prov_typedef *typedefs;	/* internal */
	unsigned typedef_cnt;
};

/* Options for reading a provider file. */
struct prov_opts {
	bool cpp;			/* run the C preprocessor first (-C) */
	const char *cpp_cmd;		/* NULL: $CPP, else the default */
	const char *const *cpp_argv;	/* "-Idir", "-DX=1", "-UY" in order */
	unsigned cpp_argc;
};

/* Where and why something went wrong. */
struct prov_diag {
	char file[1024];	/* file of the fault ("" if none) */
	unsigned line, col;	/* 0 when not about a position */
	char msg[512];
	char hint[512];		/* "" if none */
	char srcline[256];	/* text of the offending line, if known */
};

/* Parse a provider file; *out is set only on success. */
int prov_parse_file(const char *path, const struct prov_opts *opts,
		    struct prov_file **out, struct prov_diag *diag);

/* Parse text already in memory; `name` labels diagnostics. */
int prov_parse_buf(const char *name, const char *buf, size_t len,
		   struct prov_file **out, struct prov_diag *diag);

void prov_file_free(struct prov_file *pf);

/* Find a provider or a probe by its declared name, NULL if absent. */
const struct prov_provider *prov_find_provider(const struct prov_file *pf,
					       const char *name);
const struct prov_probe *prov_find_probe(const struct prov_provider *pv,
					 const char *name);

/*
 * Name mangling, shared by -h, -G and the consumers.  Each writes a
 * NUL-terminated name into buf and returns its length, or -ENAMETOOLONG
 * (buf is then left empty).
 *
 *   prov_pubname("query__start")            "query-start"
 *   prov_macro("myapp", "query__start")     "MYAPP_QUERY_START"
 *   prov_func_sym("myapp", "query__start")  "__dtrace_myapp___query__start"
 *   prov_enabled_sym(...)                   "__dtraceenabled_myapp___query__start"
 *   prov_sema_sym(...)                      "__usdt_sema_myapp___query__start"
 */
int prov_pubname(const char *probe, char *buf, size_t len);
int prov_macro(const char *provider, const char *probe, char *buf, size_t len);
int prov_func_sym(const char *provider, const char *probe, char *buf,
		  size_t len);
int prov_enabled_sym(const char *provider, const char *probe, char *buf,
		     size_t len);
int prov_sema_sym(const char *provider, const char *probe, char *buf,
		  size_t len);

/* Prefixes of the mangled symbols, for code that scans symbol tables. */
#define PROV_FUNC_PREFIX	"__dtrace_"
#define PROV_ENABLED_PREFIX	"__dtraceenabled_"
#define PROV_SEMA_PREFIX	"__usdt_sema_"
#define PROV_SEP		"___"

/* Names of stability levels and classes, NULL if out of range. */
const char *prov_stability_name(unsigned v);
const char *prov_class_name(unsigned v);

/* Format an attribute as "Evolving/Evolving/Common". */
void prov_attr_str(const struct prov_attr *a, char *buf, size_t len);

/*
 * A provider file's text, as prov_parse_file() reads it: the file itself,
 * or what the C preprocessor ($CPP, else cpp, with opts' -I/-D/-U) prints
 * for it (dtrace -C).  *buf is NUL-terminated and malloc'ed; 0 or a
 * negative errno with diag filled.  `dtrace -s` reads D scripts with
 * them too, so -C means the same for both kinds of script.
 */
int prov_read_file(const char *path, char **buf, size_t *len,
		   struct prov_diag *diag);
int prov_run_cpp(const char *path, const struct prov_opts *opts, char **buf,
		 size_t *len, struct prov_diag *diag);

/* Print a diagnostic the way the dtrace command does. */
void prov_diag_print(FILE *fp, const char *script, const struct prov_diag *d);

/*
 * How the probe macros of a header fire a probe (dtrace -h -x probestyle=).
 * CALL is DTrace's form: a call to __dtrace_<provider>___<probe>() that
 * `dtrace -G` rewrites into a NOP.  INLINE expands to the inline probe of
 * usdt-sdk's <sys/sdt.h> (a NOP and a stapsdt note emitted by the
 * compiler), which -flto builds keep; -G then only reads the notes.
 */
enum prov_probe_style {
	PROV_STYLE_CALL,
	PROV_STYLE_INLINE,
};

/* Options for writing a header (dtrace -h). */
struct prov_header_opts {
	const char *guard_from;		/* output file name for the guard */
	enum prov_probe_style style;	/* PROV_STYLE_CALL unless asked */
};

/* Write the header for every provider in pf. */
int prov_write_header(const struct prov_file *pf,
		      const struct prov_header_opts *opts, FILE *out,
		      struct prov_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* USDT_PROV_H */
