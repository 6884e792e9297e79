/* SPDX-License-Identifier: MIT */
/*
 * d_impl.h - what the parts of the D language in dtrace-G/d/ share, and
 * nothing else includes: the value and container types, the program a
 * compile builds (clauses, statements, expression trees, variables,
 * aggregations), the parser's and the evaluator's state, and the
 * functions one part calls in another.  The contract with the rest of
 * the command is dlang.h.
 *
 * The parts, in the order a program meets them:
 *
 *	value.c	  memory, output buffers, arenas, values, hash table
 *	lex.c	  tokens, comments, macros; compile errors (d_perr)
 *	compile.c statements, clauses, options, d_compile() and the
 *		  program accessors
 *	expr.c	  the expression parser
 *	decl.c	  type names, variables, structs and unions, the traced
 *		  programs' types
 *	declare.c the declarations outside clauses
 *	func.c	  the builtin variables and functions: names, kinds, values
 *	check.c	  kinds (integer or string) and what a clause reads
 *	printf.c  printf()/printa() formats: parsed, checked, printed
 *	run.c	  the evaluator
 *	stmt.c	  the statements, d_run()
 *	agg.c	  the aggregation store: update, sort, print, clear, trunc
 *	spec.c	  speculations: buffers, commit, discard, drop counts,
 *		  the kernel's held generations
 *	stack.c	  ustack(), ufunc() and the like: values, options, printing
 *	mem.c	  copyin(), pointers into its copies, tracemem()
 *
 * Errors: a compile error longjmps out of the parser (struct parser's
 * jb, set in compile.c), a run-time fault out of the evaluator (struct
 * ectx's jb, set in stmt.c).  Out of memory ends dtrace (sdk/xalloc.h:
 * "dtrace: out of memory", exit 1), as in the consumer.
 */
#ifndef USDT_DTRACE_D_IMPL_H
#define USDT_DTRACE_D_IMPL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "dlang.h"
#include "xalloc.h"

#define D_STRSIZE 256 /* DTrace's default strsize, NUL included */

/* ------------------------------------------------------------------ */
/* Values and containers (value.c) */

/* A growing output buffer. */
/* A bump allocator: compile-time trees (per program) and run-time
 * scratch (per d_run). */
struct arena {
	struct ablk *blk;
};

struct ablk {
	struct ablk *next;
	size_t used, cap;
	max_align_t data[];
};

enum { K_INT, K_STR };

/*
 * A value.  tn (tainted) marks a string whose bytes came from a traced
 * process (copyinstr(), a string argument, execname) or were computed
 * from one: text output writes it through txt_safe() (sdk/text.h), so a
 * traced process cannot put terminal controls on dtrace's output.  The
 * script's own strings (literals, and what is computed from them alone)
 * print as they are.  Every place that copies or re-creates a string
 * keeps the flag: a copy is a struct copy, and d_eval_func() ORs the
 * flags of a function's string arguments into its string result.
 */
struct dv {
	int64_t i;
	const char *s;
	uint8_t k;  /* K_INT or K_STR */
	uint8_t sz; /* 1, 2, 4, 8 for integers */
	uint8_t sg; /* signed */
	uint8_t tn; /* tainted, from a traced process (an integer: printf's
		     * %c only, set where it is printed) */
	uint8_t show; /* K_STR: how it prints (stack.c): DV_PLAIN, ... */
};

/* struct dv's show: a string, a stack (ustack()), a name (ufunc(), ...),
 * or the bytes of a struct a variable holds (mem.c: s, the struct's
 * size of them, freed as a string's) */
enum { DV_PLAIN, DV_STACK, DV_SYM, DV_SOU };

/* ------------------------------------------------------------------ */
/* Hash table with byte-string keys: self-> and associative variables,
 * and the index of aggregation entries. */

struct hent {
	struct hent *next;
	uint64_t hash;
	size_t klen;
	struct dv val; /* strings owned (malloc) */
	size_t idx;    /* aggregation entry index */
	unsigned char key[];
};

struct htab {
	struct hent **b;
	size_t nb, n;
};

/* ------------------------------------------------------------------ */
/* The program: what d_compile() builds and d_run() runs */

enum {
	/* expression nodes */
	N_INT,
	N_STR,
	N_VAR,	   /* global, self-> or this-> scalar */
	N_ASSOC,   /* global associative array element */
	N_BUILTIN, /* pid, execname, ... */
	N_ARGN,	   /* arg0..arg11 */
	N_ARGS,	   /* args[expr] */
	N_FUNC,	   /* copyinstr, strlen, ... */
	N_UN,	   /* unary operator */
	N_BIN,	   /* binary operator */
	N_LAND,
	N_LOR,
	N_LXOR,
	N_TERN,
	N_ASSIGN, /* op: '=' or the compound operator */
	N_INCDEC, /* op: OP_INC/OP_DEC; ival 1 = postfix */
	N_CAST,
	N_DEREF,   /* *e, or a[b] (b set): a pointer into copyin()'s scratch
		    * (mem.c) */
	N_MEMBER,  /* e.m, e->m (mem.c): sval the member, ival its offset */
	N_UREGS,   /* uregs[a] (stack.c) */
	N_VARADDR, /* the address of global struct or array variable sub's
		    * storage: what &s.m and &a[i] add to (mem.c) */
};

/* multi-character operators */
enum {
	OP_ARROW = 256,
	OP_INC,
	OP_DEC,
	OP_SHL,
	OP_SHR,
	OP_LE,
	OP_GE,
	OP_EQ,
	OP_NE,
	OP_LAND,
	OP_LOR,
	OP_LXOR,
	OP_ADDEQ,
	OP_SUBEQ,
	OP_MULEQ,
	OP_DIVEQ,
	OP_MODEQ,
	OP_ANDEQ,
	OP_OREQ,
	OP_XOREQ,
	OP_SHLEQ,
	OP_SHREQ,
};

/* Is binary operator op a comparison: ==, !=, <, >, <=, >=? */
static inline bool d_op_cmp(int op)
{
	return op == OP_EQ || op == OP_NE || op == '<' || op == '>' ||
	       op == OP_LE || op == OP_GE;
}

enum {
	B_PID,
	B_PPID,
	B_TID,
	B_UID,
	B_EXECNAME,
	B_TIMESTAMP,
	B_VTIMESTAMP,
	B_WALLTIMESTAMP,
	B_CPU,
	B_PROBEPROV,
	B_PROBEMOD,
	B_PROBEFUNC,
	B_PROBENAME,
	B_ID,
	B_EPID,
	B_GID,
	B_ERRNO,
	B_UCALLER,
	B_CALLER,
	B_USTACKDEPTH,
	B_PSARGS, /* curpsinfo->pr_psargs (func.c) */
	B_EUID,	  /* curpsinfo->pr_euid */
	B_EGID,	  /* curpsinfo->pr_egid */
	B_PGID,	  /* curpsinfo->pr_pgid */
	B_SID,	  /* curpsinfo->pr_sid */
};

/* The builtin variables (func.c): a name, its B_ id, and its type. */
struct d_builtin {
	const char *name;
	int id;
	uint8_t str, sz, sg;
};
extern const struct d_builtin d_builtins[];
extern const unsigned d_nbuiltins;

enum {
	F_COPYINSTR,
	F_STRLEN,
	F_STRINGOF,
	F_LLTOSTR,
	F_STRJOIN,
	F_BASENAME,
	F_DIRNAME,
	F_SUBSTR,
	F_INDEX,
	F_RINDEX,
	F_STRSTR,
	F_STRTOK,
	F_TOUPPER,
	F_TOLOWER,
	F_STRTOLL,
	F_RAND,
	F_HTONS,
	F_HTONL,
	F_HTONLL,
	F_PROGENYOF,
	F_SPECULATION,
	F_USTACK,
	F_JSTACK,
	F_UFUNC,
	F_UMOD,
	F_USYM,
	F_UADDR,
	F_COPYIN,
	F_ALLOCA,
	F_BCOPY,
	F_COPYINTO,
	F_STRCHR,
	F_STRRCHR,
	F_COPYOUT,
	F_COPYOUTSTR,
};

/*
 * The functions (func.c): N_FUNC's sub indexes this table.  args: one
 * letter per argument, what it must be (s: string, i: integer, p: an
 * address, t: a string or NULL, a: anything); ret: 's' for a string,
 * 'v' for none (a statement of its own: bcopy(), copyout(), ...), else
 * an integer of size sz and signedness sg.
 */
struct d_func {
	const char *name;
	int id;
	unsigned minargs, maxargs;
	const char *args;
	char ret;
	uint8_t sz, sg;
};
extern const struct d_func d_funcs[];
extern const unsigned d_nfuncs;

/* Named int constants: signals, errno values, DTRACEFLT_* (func.c). */
struct d_const {
	const char *name;
	int value;
};
extern const struct d_const d_consts[];
extern const unsigned d_nconsts;
bool d_const_lookup(const char *name, int64_t *v);

/* compile-time kinds */
enum { T_ANY, T_INT, T_STR };

enum { SC_GLOBAL, SC_SELF, SC_THIS, SC_ASSOC, SC_SELFASSOC /* self->a[k] */ };

/* A pointer to a pointer (mem.c): ptr says the target is 8 bytes, this
 * says what the target points to, so *pp, a[i] of an array of pointers
 * and (*pp)[i] keep C's scaling all the way down. */
struct d_pchain {
	uint8_t n;	   /* pointer levels below the target; 0: none */
	uint8_t base, bsg; /* the innermost target, as ptr and psg */
	uint16_t bsou;	   /* ... a struct or union (D_PTR_SOU): which */
};

struct var {
	char *name;
	int scope;
	int kind;      /* T_ANY until assigned or declared */
	bool assigned; /* assigned somewhere, or declared: known */
	/* a declaration (decl.c): the type, as written, and where */
	bool declared;
	uint8_t sz, sg; /* a declared integer type */
	uint8_t ptr, psg; /* first assigned a pointer (mem.c): its target */
	uint16_t psou;	  /* ... a struct or union (D_PTR_SOU): which */
	/* ... a pointer (ptr 8): what its target points to (mem.c) */
	struct d_pchain pc;
	uint16_t sou;	  /* holds a struct or union (declared of its type,
			   * or this->s = *p): which (mem.c) */
	char *tname;
	int line, col;
	/* associative arrays: the key signature, from the declaration or
	 * the first use (line, col); nkeys -1 until known */
	int nkeys;
	uint8_t *keykinds; /* declared: T_INT or T_STR per key */
	int kline, kcol;
	/* read at (rline, rcol) before anything in program order assigned
	 * it (check.c): D_IDENT_UNDEF unless declared */
	bool early;
	int rline, rcol;
};

struct node {
	int op;
	int sub; /* operator, builtin, function, variable index */
	int line, col;
	int64_t ival;
	/* N_INT, N_CAST; N_TERN: the type C's conversions give integer
	 * branches of two known, differing types (check.c), 0 otherwise */
	uint8_t sz, sg;
	/* a pointer (mem.c): what it points to, its size (D_PTR_VOID for
	 * copyin()'s void *) and signedness; ptr 0: not a pointer */
	uint8_t ptr, psg;
	/* ptr 8: what that pointer points to (a pointer to a pointer) */
	struct d_pchain pc;
	/* structs and unions (decl.c, mem.c), each an index + 1 into
	 * prog->sous: psou what a D_PTR_SOU pointer points to; sou: the
	 * node is a struct or union itself (*p, p->nested), its value the
	 * address of its copy, usable only as the operand of '.' */
	uint16_t psou, sou;
	uint8_t bits, shift; /* N_MEMBER: a bit-field's (struct d_member) */
	size_t nelem; /* N_DEREF: a fixed-size array variable's element,
		       * its index below nelem (mem.c) */
	char *sval;
	struct node *a, *b, *c;
	struct node **args;
	unsigned nargs;
	int kind; /* T_* after checking */
};

/* printf conversion */
#define PF_ALT 0x01
#define PF_ZPAD 0x02
#define PF_LEFT 0x04
#define PF_SPOS 0x08
#define PF_DYNW 0x10
#define PF_DYNP 0x20
#define PF_GROUP 0x40
#define PF_SPACE 0x80
#define PF_AGG 0x100

struct pfseg {
	const char *prefix;
	size_t preflen;
	char conv; /* 0: prefix only */
	char name[8];
	unsigned flags;
	int width, prec;
};

struct pfmt {
	char *fmt;
	struct pfseg *seg;
	unsigned nseg;
};

enum {
	AG_COUNT,
	AG_SUM,
	AG_AVG,
	AG_MIN,
	AG_MAX,
	AG_QUANTIZE,
	AG_LQUANTIZE,
	AG_STDDEV,
	AG_LLQUANTIZE,
};

/* The aggregating functions' names, indexed by AG_ (compile.c). */
extern const char *const d_agg_fn_names[];

#define QZ_NBUCKETS 127
#define QZ_ZERO 63

struct aent {
	struct dv *keys; /* strings owned */
	unsigned nkeys;
	int64_t *data;
};

struct agg {
	char *name; /* "" for the anonymous @ */
	unsigned varid;
	int fn;
	int nkeys; /* -1 until defined */
	int32_t lq_base;
	uint16_t lq_step, lq_levels;
	/* llquantize(): factor, magnitudes, steps; buckets incl. both ends */
	uint16_t llq_factor, llq_low, llq_high, llq_nsteps;
	unsigned llq_nbuckets;
	uint64_t normal; /* normalize(); 1 when not normalized */
	bool defined, printed;
	struct aent *ents;
	size_t n, cap;
	struct htab index;
};

enum {
	S_EXPR,
	S_PRINTF,
	S_TRACE,
	S_EXIT,
	S_PRINTA,
	S_CLEAR,
	S_TRUNC,
	S_AGG,
	S_IF, /* e: the condition; body, then els (either may be empty) */
	S_NORMALIZE, /* agg; e: the divisor */
	S_DENORMALIZE,
	S_SETOPT,    /* args: the option and its value (may be absent) */
	S_SPECULATE, /* e: the speculation ID */
	S_COMMIT,
	S_DISCARD,
	S_SYSTEM, /* as S_PRINTF; destructive */
	S_STOP,	  /* destructive, records nothing */
	S_RAISE,  /* e: the signal; destructive, records nothing */
	S_TRACEMEM, /* args: the address, the size, [the size to print] */
};

struct stmt {
	int kind;
	int line, col;
	int action; /* DTrace action number of the statement's first action */
	struct node *e;
	struct node **args;
	unsigned nargs;
	struct pfmt *pf;
	unsigned agg; /* index in prog->aggs (printa: the first) */
	unsigned *aggv; /* printa: every aggregation, in argument order */
	unsigned naggv;
	struct node **keys;
	unsigned nkeys;
	struct stmt *body, *els; /* S_IF */
	unsigned nbody, nels;
	/* its place in its clause's flat list (struct clause's flat): fi
	 * its index there; fup the index + 1 of the S_IF whose branch
	 * holds it (0: the clause's top), fbr 0 in the body, 1 in the
	 * else; an S_IF's body is flat[fbody, fels), its else
	 * flat[fels, fend) */
	unsigned fi, fup, fbr, fbody, fels, fend;
};

struct clause {
	char **descs;
	unsigned ndescs;
	int spec;
	struct node *pred;
	struct stmt *stmts;
	unsigned nstmts;
	/* every statement, branches' too: stmts first (flat[i] is
	 * &stmts[i] for i < nstmts), then each S_IF's body and else,
	 * together, in the order of the S_IFs in this list (compile.c's
	 * flatten()) */
	const struct stmt **flat;
	unsigned nflat;
	bool records; /* a firing may leave a record (default line) */
	uint16_t strargs;
	uint32_t needs; /* d_clause_needs() */
};

struct opt {
	char *name, *value;
};

/* A speculative buffer (spec.c): the records speculated, as text. */
struct dspec {
	bool active;
	struct sbuf buf;
};

/* A buffer whose word the kernel keeps (spec.c's "Held generations"):
 * the speculate() records in hand, not yet taken by a close; the counts
 * its open generations opened at; those of the closes in hand, not run */
struct dkheld {
	uint64_t seq;
	uint64_t stamp; /* its hit's, handed ahead; 0 at its place */
	char *rec; /* NULL: a sequence with no record */
	size_t len;
};
struct dkspec {
	struct dkheld *h;
	size_t nh;
	uint64_t *g;
	size_t ng;
	uint64_t *pend;
	size_t npend;
	uint64_t floor; /* the highest n a close took records up to */
};

struct d_prog {
	struct arena pool;
	struct clause *clauses;
	unsigned nclauses;
	struct var *vars;
	unsigned nvars;
	struct agg *aggs;
	unsigned naggs;
	struct opt *opts;
	unsigned nopts;
	bool quiet;
	bool defaultargs;
	bool aggsortrev, aggsortkey;
	unsigned aggsortpos, aggsortkeypos;
	bool aggpack, agghist, aggzoom; /* the layouts of aggfmt.c */
	int encoding; /* -x encoding: ENC_ (aggfmt.c) */
	bool destructive;      /* -w, #pragma D option destructive */
	bool uses_destructive; /* system(), stop() or raise() appear */
	bool json; /* -x oformat=json: records and aggregations as JSON */
	/* -F: flow indent (stmt.c) */
	bool flowindent;
	int flow_depth;
	const struct d_probe *flow_last_probe;
	int flow_last_clause;
	/* speculations (spec.c) */
	struct dspec *specs; /* nspec of them, made on first use */
	struct dkspec *kspecs; /* ... or the kernel's, held (spec.c) */
	bool kspec_lost;       /* d_kspec_lost(): held records all dropped */
	/* sequences of a generation not in hand at its close, where no
	 * record was lost: the reading rule failed (d_kspec_missing()) */
	uint64_t kspec_missing;
	unsigned nspec;
	size_t specsize;
	bool specsize_set;
	uint64_t spec_unavail, spec_drops; /* counted */
	uint64_t spec_unavail_told, spec_drops_told; /* reported */
	uint64_t drops_told_at;
	size_t strsize;
	/* stack.c: ustackframes, jstackframes, stackindent, srcline */
	unsigned ustackframes;
	unsigned jstackframes;
	int stackindent;
	bool srcline;
	int exit_status;
	bool heading;
	/* storage */
	struct dv *gval;   /* per var (globals) */
	struct dv *cval;   /* per var (this->) */
	unsigned nval;
	struct htab dyn;   /* self-> and associative arrays */
	/* strtok(): the string being split and where the next token
	 * starts, for one firing (reset with this->) */
	char *tok_str;
	size_t tok_pos;
	bool tok_tn; /* tok_str is tainted */
	uint64_t rand_state;
	/* clause-local variables live for one firing */
	const struct d_probe *last_probe;
	uint64_t last_ts;
	pid_t last_tid;
	int last_cpu;
	int last_clause;
	/* dtrace:::ERROR (stmt.c): the last fault (what d_error_enter()
	 * gives ERROR's arguments), faults counted, faults in an ERROR
	 * clause counted and reported (d_report_drops()), and the faulting
	 * firing's clause-local state while ERROR's clauses run */
	unsigned flt_epid;
	int flt_action, flt_type;
	uint64_t flt_addr;
	uint64_t errors, dblerrors, dblerrors_told;
	struct d_errsave *errsave;
	unsigned maxframes; /* -x maxframes: 0, or the most user frames */
	/* inline NAME = expr; (decl.c): the tree each use of NAME is */
	struct d_inline *inlines;
	unsigned ninlines;
	/* struct and union declarations (decl.c) */
	struct d_sou *sous;
	unsigned nsous;
	/* the tags of the script's enum declarations (decl.c): a variable
	 * or member of enum TAG is an int, as the enumerators are */
	char **etags;
	unsigned netags;
	/* the script's own typedefs (declare.c's parse_typedef()) */
	struct d_typedef *tdefs;
	unsigned ntdefs;
	/* the traced programs' types asked for (decl.c) */
	struct d_tlook *tlooks;
	unsigned ntlooks;
};

/* A struct or union declared in the script (decl.c), laid out as the
 * x86-64 SysV ABI lays out C's. */
struct d_member {
	char *name;
	size_t off, size, align;
	uint8_t sz, sg;	 /* an integer's or a pointer's (8, unsigned) */
	uint8_t ptr, psg; /* a pointer's target, as struct node's */
	uint16_t psou;	 /* ... a struct or union's (D_PTR_SOU) */
	uint16_t sou;	 /* a nested struct or union (not a pointer) */
	size_t nelem;	 /* an array's elements; 0: no array */
	/* a pointer's: what its target points to, as struct node's */
	struct d_pchain pc;
	uint8_t bits, shift; /* a bit-field: its width, and where it starts
			      * in the sz bytes at off; bits 0: none */
	const char *unsupp; /* a program's member of a type D cannot read
			     * (a float, an array of arrays): why; reading
			     * it is refused (D_IDENT_UNSUPP) */
};

/*
 * A struct or union: declared in the script, or a traced program's (its
 * DWARF, through d_compile_opts' ctype: ct the type, obj its object),
 * whose members are converted the first time something needs them
 * (decl.c's sou_complete()); note: why a name the script uses but never
 * declares was not found in the traced objects either, for the error.
 */
/*
 * typedef TYPE NAME; in the script (declare.c): what d_parse_type()
 * read for TYPE, which NAME then stands for wherever a type does.
 */
struct d_typedef {
	char *name; /* in the pool */
	uint8_t sz, sg; /* the base type, before the '*'s */
	uint16_t sou;	/* struct or union TAG as the base */
	bool isvoid;	/* void as the base */
	unsigned stars;
	int line, col;
};

const struct d_typedef *d_typedef_find(const struct d_prog *p,
				       const char *name);

struct d_sou {
	char *name;
	bool isunion, defined;
	bool isarray; /* a fixed-size array variable's type (declare.c) */
	size_t size, align;
	struct d_member *m;
	unsigned nm;
	const struct d_ctype *ct;
	const char *obj;
	const char *note;
	bool filling;
};

/* A lookup in the traced programs' types (decl.c), kept for the
 * program: each name is asked once. */
struct d_tlook {
	char *obj, *name; /* obj NULL: any object */
	int kind;	  /* D_CT_STRUCT, D_CT_UNION, D_CT_ENUM, D_CT_TYPEDEF */
	int ret;	  /* the callback's */
	const struct d_ctype *t;
	char *msg;
};

struct d_inline {
	char *name; /* in the pool, as the tree */
	struct node *e;
};

/* ------------------------------------------------------------------ */
/* The parser's state for one compile unit (lex.c, compile.c) */

enum { TK_EOF, TK_INT, TK_STR, TK_ID, TK_AGG, TK_OP };

struct tok {
	int t;
	int op;
	int64_t i;
	uint8_t sz, sg;
	char *s; /* TK_STR, TK_ID, TK_AGG (pool) */
	int line, col;
	const char *start, *end;
};

struct lexpos {
	const char *p;
	int line, col;
};

struct parser {
	struct d_prog *prog;
	const struct d_compile_opts *o;
	const char *src;
	struct lexpos pos;
	/* the #include'd file (a cpp line marker's) the lexer is in, for
	 * messages; NULL in the script itself */
	const char *file;
	struct tok tk; /* current token */
	/* typedef TYPE NAME; (declare.c): where NAME starts, at which
	 * d_parse_type() stops though NAME may be a type already */
	const char *type_end;
	bool in_pred;
	jmp_buf jb;
	char *msg;
	size_t msglen;
	int action; /* action counter of the current clause */
	struct clause *cl; /* this unit's clauses */
	unsigned ncl;
	struct sbuf tmp; /* text being lexed */
	unsigned depth; /* nesting of the expression being parsed */
	/* the clause so far: a data-recording action, speculate(),
	 * commit() (spec.c's rules) */
	bool cl_records, cl_speculates, cl_commits;
	unsigned sdepth; /* nesting of if statements */
	/* the expression statement being checked: where a function
	 * without a value (bcopy(), ...) may stand (func.c) */
	const struct node *void_ok;
	/* compile.c's lenient pass over the clauses, in program order
	 * (check.c notes the variables read before any assignment) */
	bool ordered_pass;
	/* the struct-valued node being checked as the operand of '.' or
	 * '->' (mem.c): the one place such a node may stand */
	const struct node *sou_ok;
	/* the last identifier taken for no type because no traced object
	 * declares it, and the lookup's note on why (a program without
	 * debug information: decl.c's typedef_at()); a syntax error just
	 * after it says so (d_syntax_error()) */
	struct tok td_miss;
	const char *td_note;
};

/*
 * How deep an expression may nest, in the parser's recursion and in the
 * tree the checker and the evaluator walk recursively, and (counted
 * apart) how deep if statements may nest: past it, a located compile
 * error, never a stack overflow (100,000 '(' or a 200,000-term sum once
 * crashed dtrace).  Real scripts stay far below.
 */
#define D_MAXDEPTH 512

/* ------------------------------------------------------------------ */
/* The evaluator's state for one d_run() (run.c, stmt.c) */

enum { FLT_BADADDR, FLT_ILLOP, FLT_DIVZERO, FLT_NOSCRATCH };

/* uregs[]'s indexes (R_* in scripts): Linux DTrace's for x86-64, the
 * slots of struct pt_regs, then what it reads from the thread */
enum {
	D_R_R15,
	D_R_R14,
	D_R_R13,
	D_R_R12,
	D_R_RBP,
	D_R_RBX,
	D_R_R11,
	D_R_R10,
	D_R_R9,
	D_R_R8,
	D_R_RAX,
	D_R_RCX,
	D_R_RDX,
	D_R_RSI,
	D_R_RDI,
	D_R_ERR,
	D_R_RIP,
	D_R_CS,
	D_R_RFL,
	D_R_RSP,
	D_R_SS,
	D_R_DS,
	D_R_ES,
	D_R_FS,
	D_R_GS,
	D_R_TRAPNO,
	D_R_NREGS
};
/* on aarch64, Linux DTrace's: R_X0-R_X30 0 to 30, then these (31 none) */
enum { D_R_A64_SP = 32, D_R_A64_PC, D_R_A64_PSTATE };

/* DTrace's fault codes (DTRACEFLT_*: ERROR's arg4, names in scripts) */
#define D_DTRACEFLT_UNKNOWN 0
#define D_DTRACEFLT_BADADDR 1
#define D_DTRACEFLT_BADALIGN 2
#define D_DTRACEFLT_ILLOP 3
#define D_DTRACEFLT_DIVZERO 4
#define D_DTRACEFLT_NOSCRATCH 5
#define D_DTRACEFLT_KPRIV 6
#define D_DTRACEFLT_UPRIV 7
#define D_DTRACEFLT_TUPOFLOW 8
#define D_DTRACEFLT_BADSTACK 9
#define D_DTRACEFLT_LIBRARY 1000

/* copyin()'s scratch copies of one d_run() (mem.c) */
struct d_cbuf {
	const unsigned char *b;
	size_t len;
};

struct ectx {
	struct d_prog *p;
	const struct clause *c;
	const struct d_fire *f;
	FILE *err; /* run-time messages that do not end the clause */
	struct arena scratch;
	struct sbuf out;
	struct sbuf after; /* JSON: printa() rows, after the record */
	jmp_buf jb;
	int action; /* 0: predicate */
	int fault;
	uint64_t faddr;
	bool exited;
	bool recorded; /* a statement that records ran */
	bool speculating;   /* speculate() ran: the record goes to spec */
	struct dspec *spec; /* ... this buffer (NULL: dropped) */
	/* commit()ted, in order: each buffer's records, copied (in
	 * scratch) and the buffer freed at the statement */
	struct sbuf *commits;
	unsigned ncommits;
	/* system(): the commands, each run when the record is written up
	 * to offset cmdat[i] of out */
	char **cmds;
	size_t *cmdat;
	unsigned ncmds;
	int status;
	int rv;
	struct d_cbuf *cbufs; /* copyin() results, in the scratch arena */
	unsigned ncbufs;
	size_t cbytes; /* their bytes in all (D_COPYIN_MAX) */
	/* d_run_pre(): printf()'s and trace()'s values, computed at the
	 * hit (../consumer/kplan_out.c), in order; the next one */
	const struct dv *pre;
	unsigned ipre;
	/* d_run_spec(): the predicate and speculate() run here too; the
	 * value pre[pfault] faulted at the hit, at address pfaddr; the
	 * predicate's truth at the hit when the program computed it
	 * (ptruth 0 or 1), else -1: evaluated here */
	bool prespec;
	int pfault;
	uint64_t pfaddr;
	int ptruth;
	/* d_run_kspec(): the record made into this, not written (a
	 * speculate() the kernel ran: the held generations take it) */
	struct sbuf *kcap;
	/* d_eval_pinned(): nodes whose values are given (not 0: d_eval()
	 * looks each node up among them first) */
	const struct d_pin *pins;
	unsigned npins;
};

/* ------------------------------------------------------------------ */
/* value.c */

void d_sb_add(struct sbuf *sb, const char *s, size_t n);
void d_sb_puts(struct sbuf *sb, const char *s);
void __attribute__((format(printf, 2, 3)))
d_sb_printf(struct sbuf *sb, const char *fmt, ...);

void *d_ar_alloc(struct arena *a, size_t n);
char *d_ar_strndup(struct arena *a, const char *s, size_t n);
void d_ar_free(struct arena *a);

struct dv d_dv_int(int64_t v, unsigned sz, bool sg);
void d_int_common(unsigned az, bool ag, unsigned bz, bool bg, unsigned *sz,
		  bool *sg);
struct dv d_dv_str(const char *s);
struct dv d_dv_tstr(const char *s);
const char *d_out_str(const struct dv *v, bool esc, char **fr);
long long d_out_int(const struct dv *v, int *width);

struct hent *d_ht_find(struct htab *t, const void *key, size_t klen);
struct hent *d_ht_insert(struct htab *t, const void *key, size_t klen);
void d_ht_remove(struct htab *t, struct hent *victim);
void d_ht_clear(struct htab *t);
void d_key_add(struct sbuf *k, const struct dv *v);
void d_dyn_key_add(struct sbuf *k, const struct dv *v);
void d_json_str(struct sbuf *sb, const char *s, size_t n);

/* ------------------------------------------------------------------ */
/* lex.c */

void __attribute__((noreturn, format(printf, 4, 5)))
d_perr(struct parser *ps, int line, int col, const char *fmt, ...);
void __attribute__((noreturn)) d_syntax_error(struct parser *ps);

/*
 * Compile errors' tags: each compile error names one (d_perrt()), and
 * under -x errtags the message starts with it ("[D_DIV_ZERO] line 3,
 * column 9: ..."), so tests (tests/d/TOPIC/err.D_TAG.NAME.d) and
 * scripts check the error, not its wording.  DTrace's names where DTrace
 * has the error; ours (D_NEST_DEPTH, D_PRINTF_FMT, D_STR_ESC,
 * D_ARR_BOUNDS) where it has none.  dtrace(1) lists them all (run-d.sh checks that it does).
 * d_perr() is d_perrt() with D_UNKNOWN: every error of the compiler
 * should name its own.
 */
#define D_ERRTAGS(X)                                                        \
	X(D_UNKNOWN) X(D_SYNTAX) X(D_EMPTY) X(D_NEST_DEPTH) X(D_INT_OFLOW)  \
	X(D_INT_DIGIT) X(D_STR_NL) X(D_STR_ESC) X(D_CHR_NL) X(D_CHR_NULL)   \
	X(D_MACRO_UNDEF) X(D_PRAGCTL_INVAL) X(D_PRAGMA_INVAL)               \
	X(D_PRAGMA_MALFORM) X(D_PRAGMA_OPTSET) X(D_PRAGERR)                 \
	X(D_IDENT_UNDEF) X(D_IDENT_BADREF) X(D_VAR_UNDEF) X(D_FUNC_UNDEF)   \
	X(D_CG_EXPR) X(D_PROTO_LEN) X(D_PROTO_ARG) X(D_OP_INT)              \
	X(D_OP_INCOMPAT) X(D_OP_WRITE) X(D_DIV_ZERO) X(D_CAST_INVAL)        \
	X(D_DECL_COMBO) X(D_DECL_IDRED) X(D_DECL_LOCASSC) X(D_DECL_ARRSUB)  \
	X(D_DECL_VOIDOBJ) X(D_DEREF_NONPTR) X(D_DEREF_VOID)                 \
	X(D_TRACEMEM_ADDR) X(D_TRACEMEM_SIZE) X(D_USTACK_FRAMES)            \
	X(D_AGG_FUNC) X(D_AGG_REDEF) X(D_AGG_SPEC) X(D_PRINTA_AGGBAD)       \
	X(D_PRINTA_AGGPROTO) X(D_LQUANT_STEPVAL) X(D_LQUANT_MISMATCH)       \
	X(D_LQUANT_STEPSMALL) X(D_LLQUANT_FACTORVAL) X(D_LLQUANT_LOWVAL)    \
	X(D_LLQUANT_HIGHVAL) X(D_LLQUANT_FACTORNSTEPS)                      \
	X(D_LLQUANT_FACTOREVEN) X(D_LLQUANT_MAGTOOBIG) X(D_PRINTF_FMT)      \
	X(D_PRINTF_FMT_EMPTY) X(D_PRINTF_ARG_PROTO) X(D_PRINTF_ARG_TYPE)    \
	X(D_PRINTF_ARG_EXTRA) X(D_PRINTF_AGG_CONV) X(D_SPEC_SPEC)           \
	X(D_SPEC_COMM) X(D_SPEC_DREC) X(D_COMM_SPEC) X(D_COMM_DREC)         \
	X(D_DREC_COMM) X(D_EXIT_SPEC) X(D_ACT_SPEC) X(D_SIZEOF_TYPE)        \
	X(D_DECL_ENCONST) X(D_DECL_ENOFLOW)     \
	X(D_IDENT_UNSUPP) X(D_FUNC_VOID) X(D_DECL_INCOMPLETE)             \
	X(D_OP_SOU) X(D_OP_PTR) X(D_TYPE_MEMBER) X(D_OFFSETOF_TYPE)       \
	X(D_OFFSETOF_BITFIELD) X(D_DECL_BFTYPE) X(D_DECL_BFSIZE)           \
	X(D_TYPE_ERR) X(D_TYPE_AMBIG) X(D_TYPE_SCOPE) X(D_UREGS_IDX)      \
	X(D_ARR_BOUNDS) X(D_ADDROF_VAR) X(D_ADDROF_LVAL)                  \
	X(D_ADDROF_BITFIELD)
#define D_ERRTAG_ENUM(t) t,
enum { D_ERRTAGS(D_ERRTAG_ENUM) D_NERRTAGS };
extern const char *const d_errtag_names[];

void __attribute__((noreturn, format(printf, 5, 6)))
d_perrt(struct parser *ps, int tag, int line, int col, const char *fmt, ...);
void d_lx_adv(struct lexpos *l);
void d_lx_skip(struct parser *ps);
char *d_pool_strndup(struct parser *ps, const char *s, size_t n);
void *d_pool_grow(struct parser *ps, void *old, unsigned n, size_t sz);
const char *d_macro_text(struct parser *ps, const char *name, bool *is_int,
			 char *buf, size_t buflen, int line, int col);
void d_lex(struct parser *ps);
bool d_is_op(struct parser *ps, int op);
void d_expect(struct parser *ps, int op);

/* ------------------------------------------------------------------ */
/* compile.c */

int d_flag_value(const char *v);

/* ------------------------------------------------------------------ */
/* expr.c */

struct node *d_mknode(struct parser *ps, int op, const struct tok *at);
void d_check_height(struct parser *ps, const struct node *n, unsigned d);
struct node **d_parse_args(struct parser *ps, unsigned *nargs, int close);
bool d_is_action_name(const char *s);
struct node *d_parse_assign(struct parser *ps);
struct node *d_parse_expr(struct parser *ps);

/* ------------------------------------------------------------------ */
/* decl.c */

unsigned d_var_lookup(struct d_prog *p, int scope, const char *name);
int d_var_find(const struct d_prog *p, int scope, const char *name);
const char *d_var_display(const struct var *v, char *buf, size_t len);
struct dv d_var_zero(const struct var *v);
struct dv d_var_conv(const struct var *v, struct dv val);
bool d_cast_type(const char *name, uint8_t *sz, uint8_t *sg);
void d_parse_type(struct parser *ps, uint8_t *sz, uint8_t *sg, uint8_t *ptr,
		  uint8_t *psg, uint16_t *sou, struct d_pchain *pc);
size_t d_sou_size(struct parser *ps, uint16_t sou, int tag,
		  const struct tok *at);
const struct d_member *d_sou_member(struct parser *ps, uint16_t sou,
				    const char *name, const struct tok *at);
bool d_starts_type(struct parser *ps);
uint16_t d_sou_find(struct parser *ps, const char *name, bool isu,
		    const struct tok *at);
const struct d_sou *d_sou_complete(struct parser *ps, uint16_t sou, int tag,
				   const struct tok *at);
bool d_script_enum(struct parser *ps, const char *tag);
bool d_scoped_name(struct parser *ps, char **obj, char **name);
bool d_enumerator(struct parser *ps, const char *obj, const char *name,
		  const struct tok *at, int64_t *v);

/* ------------------------------------------------------------------ */
/* declare.c */

bool d_starts_decl(struct parser *ps);
void d_parse_decl(struct parser *ps);
struct node *d_inline_use(struct parser *ps, const struct tok *t);

/* ------------------------------------------------------------------ */
/* func.c */

int d_check_func(struct parser *ps, struct node *n, bool strict);
struct node *d_psinfo_member(struct parser *ps, const struct tok *t);
struct dv d_eval_func(struct ectx *x, const struct node *n);

/* ------------------------------------------------------------------ */
/* check.c */

const char *d_kind_name(int k);
void d_need_int(struct parser *ps, struct node *n, int k, const char *what,
		bool strict);
int d_check(struct parser *ps, struct node *n, bool strict);
void d_check_clause(struct parser *ps, struct clause *c, bool strict);
uint16_t d_strargs_of(const struct node *n);
uint32_t d_needs_of(const struct node *n);
/* Is n ufunc(), usym(), umod() or uaddr(): a user address named as of
 * the hit (D_NEED_UNAME)? */
bool d_uname_func(const struct node *n);

/* ------------------------------------------------------------------ */
/* printf.c */

struct pfmt *d_pf_create(struct parser *ps, const char *s,
			 const struct tok *at, const char *func);
void d_pf_validate(struct parser *ps, struct pfmt *pf, const char *func,
		   struct node **args, unsigned nargs, const int *keys,
		   unsigned nkeys, bool printa, unsigned agg,
		   const struct tok *at);
void d_pf_one(struct sbuf *sb, const struct pfseg *d, int width, int prec,
	      const struct dv *v, bool escape);
bool d_int_type(const struct d_prog *p, const struct node *n, uint8_t *sz,
		uint8_t *sg);

/* ------------------------------------------------------------------ */
/* run.c */

void __attribute__((noreturn))
d_fault(struct ectx *x, int flt, uint64_t addr);
/*
 * A run's context for program p at firing f, of clause c (NULL: none,
 * d_read_str_late()), the rest zero; the caller sets its own fields and
 * its setjmp(x->jb).  d_ectx_free() frees it with what the run left in
 * it (its output buffers, its scratch arena).
 */
struct ectx *d_ectx_new(struct d_prog *p, const struct clause *c,
			const struct d_fire *f);
void d_ectx_free(struct ectx *x);
struct dv d_eval(struct ectx *x, const struct node *n);
/*
 * A value of node n computed elsewhere (../consumer/kplan_out.c: a leaf
 * of a printf() or trace() argument the program computed at the hit):
 * v, or, flt, a copy that faulted at faddr.
 */
struct d_pin {
	const struct node *n;
	struct dv v;
	uint64_t faddr;
	bool flt;
};
/*
 * d_eval() of n, a printf() or trace() argument of clause clause, at
 * firing f, each node of pins[] (npins) not evaluated but given: its
 * value, or its fault (invalid address, as the copy would have
 * raised).  0 and *v (a string: *str, malloc()ed, which v->s is, for
 * the caller to free), or the fault: 1 and *faddr (invalid address),
 * or 2 (illegal operation: curpsinfo->pr_psargs of a record without
 * it, builtin()'s).
 */
int d_eval_pinned(struct d_prog *p, unsigned clause, const struct d_fire *f,
		  const struct node *n, const struct d_pin *pins,
		  unsigned npins, struct dv *v, char **str, uint64_t *faddr);
/* The binary operator of compound assignment op (OP_ADDEQ: '+'). */
int d_compound_op(int op);
const char *d_read_user_str(struct ectx *x, uint64_t addr, size_t max);
const char *d_arg_str(struct ectx *x, unsigned n, size_t max);
/* Is args[n] a string at probe pr (its declared type), as d_eval()
 * reads it there: then it is d_arg_str(), copyinstr(argn)'s value */
bool d_args_str(const struct d_probe *pr, unsigned n);
bool d_args_int(const struct d_probe *pr, unsigned n, uint8_t *sz,
		uint8_t *sg);
bool d_truth(const struct dv *v);
/* n an integer constant expression: its value as a firing would compute
 * it (run.c); false if n is not one */
bool d_const_dv(const struct node *n, struct dv *v);
bool d_const_int(const struct node *n, int64_t *v);
/* *np, a constant expression, replaced by the literal of its value
 * (check.c) */
void d_fold_int(struct parser *ps, struct node **np);
/* Does a statement of v (n of them), or of their branches, at any
 * depth, call printf() or trace()?  (d_run_pre() takes such an if's
 * condition's value from the ones given.) */
bool d_stmts_prints(const struct stmt *v, unsigned n);
/* Is st @a[ustack(...)] = count() or @a[jstack(...)] = count(): one
 * key the record's stack whole, every other key a literal (a string or
 * an integer) or what the record carries (pid, tid, cpu, execname, uid,
 * gid, the probe's names, curpsinfo->pr_psargs); or sum(), avg(), min(),
 * max(), quantize() or stddev() of one value?  A clause the kernel runs
 * makes its update here, from the record (d_run_pre() runs it as the
 * interpreter does, the value the next one given; ../consumer/
 * kplan_out.c's "User stacks as aggregation keys, first slice").
 * d_stmt_ukey_at() gives the stack key's index, -1 where st is not
 * such a statement. */
bool d_stmt_ukey(const struct d_prog *p, const struct stmt *st);
int d_stmt_ukey_at(const struct d_prog *p, const struct stmt *st);
/* ... or @a[ufunc(E)] = count() (usym(), umod(), uaddr()), or sum(),
 * avg(), min(), max(), quantize() or stddev() of one value V: one key,
 * a user address's name?  A clause the kernel runs writes E (and V)
 * into its out area and d_run_pre() makes the update, the key the name
 * ../consumer/kplan_out.c's out_list() gave (x->pre), dated by the
 * record's pid and time as a clause dtrace runs names it, the value the
 * next one given */
bool d_stmt_uname(const struct d_prog *p, const struct stmt *st);
/* ... or such an update whose address is ucaller (d_ucall_key()):
 * frame 1 of the record's stack, which only dtrace unwinds, so the
 * record carries the stack (the plan's OSTK), d_run_pre() names the key
 * from it as the interpreter does (d_eval()) and the value is the next
 * one given */
bool d_stmt_ucall(const struct d_prog *p, const struct stmt *st);
/* ... or such an update with no stack key, every key a literal or what
 * the record carries (d_stmt_ukey()'s), one of them
 * curpsinfo->pr_psargs, the record's argument area (a stack key may
 * have it beside it too): dtrace makes the update from the record, and
 * a record without the area faults there as the interpreter does */
bool d_stmt_pkey(const struct d_prog *p, const struct stmt *st);
/* Is one of st's keys curpsinfo->pr_psargs?  ..._at(): the first
 * one's index, or -1 */
bool d_psargs_key_in(const struct stmt *st);
int d_psargs_key_at(const struct stmt *st);
/* ... any of them: an update dtrace makes from the record */
bool d_stmt_from_record(const struct d_prog *p, const struct stmt *st);
bool d_ucall_key(const struct node *n);
/* Is one of st's keys ustack() or jstack()? */
bool d_stack_key_in(const struct stmt *st);
struct dv *d_var_slot(struct ectx *x, const struct node *n, struct sbuf *k,
		      bool create);
/* Self-> integer var of thread tid set to v as a store sets it (0
 * deletes it); what it held (absent: 0): kplan's clauses that read the
 * kernel's values (../consumer/kplan_vin.c's "Shared self->
 * variables") */
struct dv d_self_put(struct d_prog *p, unsigned var, int32_t tid, struct dv v);
/* Element keys[0 .. nk) of thread-local array var of thread tid set to
 * v as a store sets it (an integer 0 deletes it): the kernel's copy
 * moved to user space (../consumer/bpf_agg_cgen.c's bpf_kagg_tls_move()) */
void d_self_aput(struct d_prog *p, unsigned var, int32_t tid,
		 const struct dv *keys, unsigned nk, struct dv v);
/* Global integer var OP= v (op '+' or '-'), v of type (sz, sg) with its
 * 64 bits, as `var += v` computes and stores it (binop(), var_set()):
 * what the kernel counted of a global (../consumer/kplan_gcnt.c) */
void d_var_add(struct d_prog *p, unsigned var, int op, uint64_t v, unsigned sz,
	       bool sg);

/* ------------------------------------------------------------------ */
/* agg.c */

void d_agg_update(struct ectx *x, struct agg *a, const struct stmt *st);
struct aent *d_agg_entry(struct agg *a, const struct dv *keys, unsigned nkeys);
unsigned d_llq_nbuckets(uint16_t factor, uint16_t low, uint16_t high,
			uint16_t nsteps);
void d_printa(struct d_prog *p, const unsigned *aggv, unsigned naggv,
	      const struct pfmt *pf, struct sbuf *sb);
void d_agg_clear(struct agg *a);
void d_agg_trunc(struct d_prog *p, struct agg *a, int64_t keep);
void d_agg_free_entries(struct agg *a);
int64_t d_qz_bucketval(int b);
uint64_t d_agg_stddev(const int64_t *d, uint64_t normal);
void d_agg_quantline(struct sbuf *sb, int64_t val, uint64_t normal,
		     long double total, bool positives, bool negatives,
		     bool utf8);
void d_agg_print_key(struct sbuf *sb, const struct d_prog *p,
		     const struct dv *k, bool packed);

/* ------------------------------------------------------------------ */
/* aggfmt.c: -x agghist, aggpack, aggzoom */

/* One printing of one aggregation in the agghist or aggpack layout. */
struct aggfmt {
	const struct d_prog *p;
	const struct agg *a;
	bool hist, pack; /* the layout this aggregation takes */
	bool hdr;	 /* its header is out */
	bool pos, neg;	 /* agghist: signs of the values */
	long double total; /* agghist: what a full bar stands for */
	int minbin, maxbin; /* aggpack, quantize(): the buckets shown */
	bool utf8; /* aggpack: block elements, not "_x X" */
};

/* -x encoding: unset (aggpack: UTF-8 unless TERM is primitive) */
enum { ENC_UNSET, ENC_ASCII, ENC_UTF8 };

void d_dist_total(long double *total, int64_t v, bool zoom);
void d_quantline_utf8(struct sbuf *sb, int64_t val, uint64_t normal,
		      long double total);
void d_aggfmt_begin(struct aggfmt *f, const struct d_prog *p,
		    const struct agg *a);
void d_aggfmt_row(struct aggfmt *f, struct sbuf *sb, const struct aent *ke,
		  const int64_t *d);

/* ------------------------------------------------------------------ */
/* stack.c */

int d_stack_option(struct d_prog *p, const char *name, const char *value,
		   char *msg, size_t msglen);
bool d_stack_func(int id);
void d_stack_check(struct parser *ps, const struct node *n);
bool d_stack_stmt(const struct node *e);
struct dv d_stack_eval(struct ectx *x, const struct node *n,
		       const struct dv *a);
/* ustack() or jstack() node n of a clause the kernel ran: the stack of
 * f's record as d_stack_eval() gives it, its text malloc()ed in *fr
 * (../consumer/kplan_out.c's OSTK) */
struct dv d_stack_rec(const struct d_prog *p, const struct d_fire *f,
		      const struct node *n, char **fr);
struct dv d_stack_ucaller(struct ectx *x);
struct dv d_stack_depth(struct ectx *x);
void d_uregs_check(struct parser *ps, const struct node *n);
int d_ureg_dwarf(int64_t r);
struct dv d_uregs(struct ectx *x, const struct node *n);
struct dv d_stack_addr(struct ectx *x, struct dv v, char conv);
void d_stack_print(struct sbuf *sb, const struct d_prog *p,
		   const struct dv *v);
void d_stack_print_k(struct sbuf *sb, const struct pfseg *d, int width,
		     const struct dv *v);
void d_stack_json(struct sbuf *sb, const struct dv *v);

/* ------------------------------------------------------------------ */
/* mem.c */

#define D_PTR_VOID 0x80
#define D_PTR_SOU 0x40 /* a struct or union: the node's psou says which */
/* bytes copyin() may copy in one firing: DTrace's scratch space */
#define D_COPYIN_MAX (64 * 1024)
void d_mem_check(struct parser *ps, struct node *n);
void d_member_check(struct parser *ps, struct node *n, bool strict);
uint64_t d_ptr_scale(const struct d_prog *p, const struct node *n);
void d_pchain_deref(struct node *n, const struct d_pchain *pc);
int d_addrof_check(struct parser *ps, struct node *n, bool strict);
bool d_pchain_eq(const struct d_pchain *a, const struct d_pchain *b);
struct dv d_member(struct ectx *x, const struct node *n);
void d_tracemem_check(struct parser *ps, struct stmt *st, bool strict);
struct dv d_copyin(struct ectx *x, const struct node *n,
		   const struct dv *a);
struct dv d_deref(struct ectx *x, const struct node *n);
uint64_t d_deref_addr(struct ectx *x, const struct node *n);
struct dv d_load(struct ectx *x, const struct node *n, uint64_t p);
struct dv d_store(struct ectx *x, const struct node *n, uint64_t p,
		  struct dv v);
struct dv d_mem_string(struct ectx *x, uint64_t p);
struct dv d_alloca(struct ectx *x, const struct dv *a);
void d_sou_assign_check(struct parser *ps, struct node *n, struct var *v);
struct dv d_sou_get(struct ectx *x, const struct node *n, struct dv slot);
struct dv d_var_addr(struct ectx *x, const struct node *n);
void d_sou_put(struct ectx *x, const struct node *var, struct sbuf *k,
	       uint64_t addr);
/* Where a store writes (mem.c's lval_addr()) */
struct d_lval {
	const struct node *n; /* the lvalue: its type */
	uint64_t addr;
	const struct node *root; /* a struct variable it lies in, or NULL */
	uint64_t base;		 /* ... the scratch copy of its bytes */
	char *key;		 /* ... a dynamic one's key (scratch) */
	size_t klen;
};
void d_lval(struct ectx *x, const struct node *n, struct d_lval *l);
struct dv d_lval_load(struct ectx *x, const struct d_lval *l);
struct dv d_lval_store(struct ectx *x, const struct d_lval *l, struct dv v);
void d_bcopy(struct ectx *x, const struct dv *a);
void d_copyinto(struct ectx *x, const struct dv *a);
void d_copyout_held(struct ectx *x, const struct dv *a, bool str);
/* why copyout(), copyoutstr() call n cannot be written at the hit by the
 * BPF program, or NULL (func.c) */
const char *d_copyout_why(const struct node *n, bool str);
void d_tracemem(struct ectx *x, const struct stmt *st);

/* ------------------------------------------------------------------ */
/* spec.c */

int64_t d_spec_alloc(struct d_prog *p);
struct dspec *d_spec_get(struct ectx *x, int64_t id);
void d_spec_record(struct d_prog *p, struct dspec *s, const char *rec,
		   size_t len);
void d_spec_free(struct dspec *s);
void d_spec_tick(struct d_prog *p, uint64_t now, FILE *err);
void d_spec_free_all(struct d_prog *p);
/* stmt.c: text for the output, the heading first if none was written */
void d_emit(struct d_prog *p, FILE *out, const char *b, size_t len);

/* option.c: set option name to value (NULL: a flag given bare); 0, or
 * -1 with why in msg */
int d_option_set(struct d_prog *p, const char *name, const char *value,
		 char *msg, size_t msglen);

#endif /* USDT_DTRACE_D_IMPL_H */
