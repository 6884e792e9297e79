/* SPDX-License-Identifier: MIT */
/*
 * dlang.h - the D language of `dtrace -n` and `dtrace -s`: compile a
 * program, run its clauses when a probe fires, keep its variables and
 * aggregations, and print what it prints in DTrace's layout.
 *
 * This part knows nothing about the kernel.  The consumer (consumer/)
 * resolves each clause's probe descriptions against the probe table,
 * enables the sites, and for every hit calls d_run() with what the hit
 * recorded: the arguments, strings copied at hit time, pid, tid, CPU and
 * times.  So everything here is testable without a kernel (t-dlang), and
 * BEGIN/END programs run without tracing anything (tests/d/).  The parts
 * behind this interface are listed in d_impl.h.
 *
 * Values are 64-bit integers or strings; integers are computed in 64
 * bits with the C type of each result, and narrowed to their type only
 * by casts, stores into declared variables and records (trace(),
 * printf(), keys), as DTrace's registers and records do.  Supported D:
 *
 *	program	 := (clause | pragma | decl)*
 *	pragma	 := #pragma D option NAME[=VALUE]   (quiet, others accepted)
 *		  | #pragma D error TEXT	   (refuses the program)
 *	decl	 := ['self' | 'this'] type NAME ['[' type, ... ']'], ... ';'
 *		  | 'inline' type NAME '=' expr ';'
 *		  | 'enum' [TAG] '{' NAME ['=' const], ... '}' ';'  (int consts)
 *		  | ('struct' | 'union') TAG ['{' (type (NAME ['[' N ']']
 *		    | [NAME] ':' N), ... ';')+ '}'] ';'   (members: C
 *		    integers, pointers, structs and unions, arrays of them,
 *		    bit-fields; laid out as x86-64 C; no declared
 *		    variables of these types: a global or this-> one
 *		    assigned a struct (this->s = *p) holds a copy, mem.c)
 *		  (type: string or a C integer or pointer type; self->
 *		  arrays are used undeclared; in casts, sizeof, offsetof
 *		  and members also the traced programs' struct, union,
 *		  enum and typedef names, from their DWARF through
 *		  d_compile_opts' ctype, scoped as DTrace scopes them:
 *		  struct OBJ`TAG, OBJ`NAME)
 *	clause	 := desc (',' desc)* ['/' expr '/'] ['{' stmt* '}']
 *		  (desc: a probe, or the dtrace provider's BEGIN, END, ERROR)
 *	stmt	 := expr ';' | action ';' | '@'NAME['[' expr,... ']'] '=' agg ';'
 *		  | self->X ['[' expr,... ']'] '=' expr ';' | this->X '=' expr ';'
 *		  | X ['[' expr,... ']'] '=' expr ';'   (expr 0 clears any)
 *		  | 'if' '(' expr ')' body ['else' body]
 *	body	 := '{' stmt* '}' | stmt
 *	action	 := printf(fmt, ...) | trace(expr) | exit(expr)
 *		  | tracemem(ptr, size [, nbytes])
 *		  | speculate(id) | commit(id) | discard(id)
 *		  | system(fmt, ...) | stop() | raise(sig)   (with -w)
 *		  | printa([fmt,] @a [, @b ...]) | clear(@a) | trunc(@a [, n])
 *		  | normalize(@a, n) | denormalize(@a) | setopt(name [, value])
 *	agg	 := count() | sum(e) | avg(e) | min(e) | max(e) | stddev(e)
 *		  | quantize(e [, incr]) | lquantize(e, low, high [, step [, incr]])
 *		  | llquantize(e, factor, low, high, steps [, incr])
 *	expr	 := C operators (?: || && ^^ | ^ & == != < <= > >= << >> + - *
 *		  / % ! ~ unary - ++ -- (prefix), sizeof, offsetof, casts to
 *		  integer and pointer types, and unary *, [ ], '->' and '.'
 *		  of a pointer into copyin()'s copies or alloca()'s
 *		  scratch: mem.c; an array member is a pointer to its
 *		  first element, as in C; s[i] of a string: a char,
 *		  run.c),
 *		  integer and string literals, variables, builtins, functions
 *		  (func.c's table: copyinstr, strlen, substr, strtok,
 *		  speculation, ...)
 *	builtins arg0..arg11, args[N], pid, ppid, tid, uid, gid, execname,
 *		  timestamp, vtimestamp, walltimestamp, cpu, probeprov,
 *		  probemod, probefunc, probename, id (probe ID), epid,
 *		  errno (a syscall provider's return: the call's error)
 *		  ucaller, ustackdepth (stack.c, with ustack(), ufunc(),
 *		  umod(), usym(), uaddr(): the consumer's callbacks in
 *		  struct d_fire), caller (0: no kernel stack),
 *		  uregs[R_*] (stack.c: the registers taken with the
 *		  stack), curpsinfo->pr_pid, pr_ppid, pr_uid, pr_gid,
 *		  pr_fname (func.c); not stackdepth (a compile error
 *		  saying why)
 *	consts	 the signal and errno names (SIGUSR1, EPERM, ...) and
 *		  DTRACEFLT_* as ints (func.c)
 *	macros	 $target, $pid, dtrace's $ppid $pgid $sid $uid $gid $euid
 *		  $egid $cwd, $1..$9 (integer when numeric), $$1..$$9
 *		  (always a string); also inside probe descriptions
 */
#ifndef USDT_DTRACE_DLANG_H
#define USDT_DTRACE_DLANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define D_MAXARGS 12

struct d_prog;

/*
 * A C type of a traced program, as its debug information declares it
 * (d_compile_opts' ctype): what the compiler needs of it to read the
 * program's memory exactly as the program's compiler laid it out.
 * Typedefs and const/volatile are resolved to what they name.
 */
enum {
	D_CT_TYPEDEF, /* a lookup's kind only: a typedef name */
	D_CT_VOID,
	D_CT_INT,  /* integers, char, _Bool: size and sign */
	D_CT_ENUM, /* an enum: an integer of its size and sign */
	D_CT_PTR,  /* ref: what it points to (D_CT_FUNC for code) */
	D_CT_ARRAY, /* ref: the element; nelem 0: no bound ([]) */
	D_CT_STRUCT,
	D_CT_UNION,
	D_CT_FUNC,  /* a function (pointers to functions point to one) */
	D_CT_OTHER, /* floating point and the rest: what says which */
	D_CT_ENUMERATOR, /* a lookup's kind only: an enumerator's name
			  * (the answer: the enum that declares it) */
};

struct d_ctype;

/* A struct's or union's member: at byte off, or a bit-field (bits > 0)
 * at bit bitoff from the start of the struct. */
struct d_cmember {
	const char *name; /* NULL: an anonymous struct or union member */
	const struct d_ctype *type;
	uint64_t off;
	uint64_t bitoff;
	unsigned bits;
};

struct d_cenum {
	const char *name;
	int64_t value;
};

struct d_ctype {
	int kind;
	const char *name; /* a struct's, union's or enum's tag; NULL: none */
	const char *obj;  /* the object it comes from (messages) */
	const char *what; /* D_CT_OTHER: "float", ... */
	uint64_t size;
	bool sg;	  /* D_CT_INT, D_CT_ENUM: signed */
	bool incomplete;  /* a struct or union declared, never defined */
	const struct d_ctype *ref;
	uint64_t nelem;
	const struct d_cmember *m;
	unsigned nm;
	const struct d_cenum *e;
	unsigned ne;
};

/* Compile-time inputs. */
struct d_compile_opts {
	const char *srcname; /* for messages: script path, or NULL for -n */
	/* $1.. $N: the arguments after the script or -n options */
	const char *const *macro_argv;
	unsigned macro_argc;
	pid_t target; /* $target (0: not set; using it is an error) */
	/*
	 * How -n/-P/-m/-f text is taken: DT_SPEC-like field the first
	 * description field starts at, 4 for -n (a whole clause may follow),
	 * 1 for -P, 2 for -m, 3 for -f (the text is only descriptions).
	 * 0 for a -s script.
	 */
	int spec;
	/* -x errtags: each message starts with its tag, "[D_SYNTAX] " */
	bool errtags;
	/*
	 * The C types of the traced programs (their DWARF), which the
	 * command supplies (consumer/ctypes.c); NULL: none.  The compiler
	 * asks only for a name the script uses and does not declare
	 * itself: a struct, union or enum tag (kind D_CT_STRUCT,
	 * D_CT_UNION, D_CT_ENUM), a typedef name (D_CT_TYPEDEF) or an
	 * enumerator (D_CT_ENUMERATOR: an identifier read as no variable
	 * of the script can be; two values for it disagree), in the
	 * object obj ("a.out", "libfoo.so.1": `struct obj`tag`,
	 * `obj`name`) or, obj NULL, in any the run traces.  1 with *t the
	 * type (typedefs and qualifiers resolved; it lives as long as the
	 * program), 0 when no object has it (msg may say why, e.g. that
	 * an object has no debug information), or an error said in msg:
	 * -1 two objects (or two units of one) declare it differently and
	 * obj does not choose; -2 no object the run traces is named obj,
	 * or it has no debug information.
	 */
	int (*ctype)(void *ctx, const char *obj, int kind, const char *name,
		     const struct d_ctype **t, char *msg, size_t msglen);
	void *ctype_ctx;
	/*
	 * The consumer can hold a firing thread at its probe while the
	 * clause runs (-c/-p targets: consumer/dlhold.c), so copyout() and
	 * copyoutstr() of any source, to any address, of any size, are
	 * taken (struct d_fire's copyout 2); else only the forms the BPF
	 * program writes at the hit (d_prog_copyout()).
	 */
	bool copyout_held;
};

/*
 * Compile src (a -s script, or the text of one -n/-P/-m/-f option) and
 * append its clauses to *prog (creating it when *prog is NULL), so
 * several options make one program with clauses in command-line order.
 * 0, or -1 with a message in msg naming the line and column:
 *	"line 3, column 14: syntax error near \"}\""
 * (the caller prefixes the script name or the option), under errtags
 * after the error's tag (d_impl.h's list): "[D_SYNTAX] line 3, ...".
 */
int d_compile(struct d_prog **prog, const char *src,
	      const struct d_compile_opts *o, char *msg, size_t msglen);
void d_free(struct d_prog *prog);

/* Options set by #pragma D option or -q/-x. */
bool d_opt_quiet(const struct d_prog *prog);
/* strsize now (setopt() may change it while tracing) */
size_t d_opt_strsize(const struct d_prog *prog);
/* a flag option (-x name[=yes|no|...]): set, and to a value that sets it */
bool d_opt_flag(const struct d_prog *prog, const char *name);
void d_set_quiet(struct d_prog *prog, bool quiet);
/*
 * -x NAME[=VALUE]: 0, or -1 with a message ("failed to set option 'x':
 * Invalid option name").  Applied here: quiet, strsize, defaultargs,
 * aggsortrev, aggsortkey, aggsortpos, aggsortkeypos, nspec, specsize,
 * destructive (-w), flowindent (-F), ustackframes, maxframes,
 * stackindent, srcline;
 * stored only (checked), for the consumer (d_get_option): bufsize,
 * switchrate, ustacksize, mangled, aggsize, aggrate, dynvarsize,
 * cleanrate, statusrate, ...
 * Call it on a program d_compile() created (or before the first
 * d_compile() by passing a program from d_compile of "").
 */
int d_set_option(struct d_prog *prog, const char *name, const char *value,
		 char *msg, size_t msglen);
/*
 * Options DTrace's reference lists that cannot apply here (aggsize,
 * dynvarsize, cpu, grabanon, ...) are accepted; this
 * prints one warning for each one set ("dtrace: option cpu has no
 * effect here: every CPU is traced"), after the options are applied.
 */
void d_option_warnings(const struct d_prog *prog, FILE *err);
/* Whether NAME is an option of the D program's (-x NAME, #pragma D
 * option NAME): the one list, which the command consults for -x too. */
bool d_known_option(const char *name);
/* The value of an option set by pragma or -x ("" when given without a
 * value), or NULL when not set. */
const char *d_get_option(const struct d_prog *prog, const char *name);

/* Clauses, in program order, and what the consumer needs to enable them. */
unsigned d_nclauses(const struct d_prog *prog);
unsigned d_clause_ndescs(const struct d_prog *prog, unsigned clause);
/* The description text after macro substitution, e.g. "myapp1234:::q" */
const char *d_clause_desc(const struct d_prog *prog, unsigned clause,
			  unsigned desc);
/* The field the description text starts at (see spec above). */
int d_clause_spec(const struct d_prog *prog, unsigned clause);
/*
 * Bit N set: the clause reads a string at argument N's address when the
 * probe fires (copyinstr(argN), copyinstr(args[N]), or args[N] when the
 * probe declares argument N as `string`), so the consumer has the kernel
 * copy it at hit time.  Declared types are known only at run time, so
 * for args[N] the bit is set when N is used at all; the consumer checks
 * the probe's type.
 */
uint16_t d_clause_strargs(const struct d_prog *prog, unsigned clause);

/*
 * What the clause reads of a firing, so the consumer has the kernel copy
 * only that: bit N (D_NEED_ARGS) for argN or args[N] (all of them for
 * args[] with a computed index), D_NEED_EXECNAME for execname,
 * D_NEED_PPID for ppid and progenyof().
 */
#define D_NEED_ARGS 0x0fffu
#define D_NEED_EXECNAME 0x10000u
#define D_NEED_PPID 0x20000u
/* the user stack of each hit (ustack(), ucaller): registers and a copy of
 * the stack, unwound in dtrace (consumer/ustack.c) */
#define D_NEED_USTACK 0x40000u
/* vtimestamp: the thread's on-CPU time, kept by the backend (vtime.c) */
#define D_NEED_VTIME 0x80000u
/* a firing's vtimestamp that the backend could not keep (a switch of the
 * thread went unreported): a clause that reads it faults (ILLOP) */
#define D_VTIME_UNKNOWN UINT64_MAX
/* uid, gid (curpsinfo's pr_uid, pr_gid): the firing thread's real ids at
 * the hit, which the BPF backend takes (bpf.c); the others refuse them
 * (consumer/psargs.c's cred_check()) */
#define D_NEED_CRED 0x100000u
/* curpsinfo->pr_psargs: the process's arguments at the hit, which the
 * BPF backend copies (consumer/psargs.c) */
#define D_NEED_PSARGS 0x200000u
/* curpsinfo->pr_euid, pr_egid: the effective ids at the hit, which the
 * BPF backend reads (consumer/psargs.c) */
#define D_NEED_ECRED 0x400000u
/* curpsinfo->pr_pgid, pr_sid: the process group and session at the hit
 * (consumer/psargs.c) */
#define D_NEED_SESS 0x800000u
/* copyout(), copyoutstr(): the BPF program writes at the hit
 * (d_prog_copyout()) */
#define D_NEED_COPYOUT 0x1000000u
/* progenyof(): the chain of parents taken at the hit (struct d_fire's
 * anc), where the backend can (BPF); D_NEED_PPID is set beside it */
#define D_NEED_ANC 0x2000000u
/* ufunc(), usym(), umod(), uaddr(), printf()'s %A: user addresses named
 * as of the hit, which the dating of the process's mappings gives
 * (consumer/ustack.c: its texts, the fork tracker's mapping records);
 * no stack copy */
#define D_NEED_UNAME 0x4000000u
#define D_ANC_NONE 0
#define D_ANC_FULL 1
#define D_ANC_CUT 2
uint32_t d_clause_needs(const struct d_prog *prog, unsigned clause);

/*
 * copyin(argN, size) with a constant size in the clause: the consumer
 * may have the kernel copy that many bytes at argument N's address when
 * the probe fires (struct d_fire's mem[]).  Fills size[0..D_MAXARGS-1]
 * with the largest constant size per argument (0: none) and returns the
 * mask of arguments that have one.
 */
uint16_t d_clause_memargs(const struct d_prog *prog, unsigned clause,
			  uint32_t size[D_MAXARGS]);

/*
 * copyoutstr("string", argN, size), copyoutstr(copyinstr(argA), argN,
 * size) and copyout(copyin(argA, n), argN, size) (-w): DTrace writes
 * before the probe returns, so the BPF program writes at the hit (the
 * bytes of the literal, or those it reads at argument A's address just
 * before), and the clause, run later in dtrace, faults where the write
 * did (struct d_fire's copyout).  The write is exact only as the
 * clause's first statement, without a predicate, once in the program,
 * in a program that reads none of the process's memory but the
 * write's own source: 0 when the program has none, 1 with co filled,
 * -1 with why saying which rule it breaks (then the consumer holds the
 * firing thread at its probe and the clause writes: copyout_held).
 */
#define D_COPYOUT_MAX 64 /* bytes written, the NUL included */
struct d_copyout {
	unsigned clause, arg;
	const char *bytes; /* the literal's (src 0) */
	size_t len;	   /* bytes to write, at most D_COPYOUT_MAX */
	/* 0: bytes; else 1 + the argument whose memory is read at the hit
	 * and written: a string (str: up to rlen bytes, its NUL included,
	 * then at most len of them), or rlen bytes (copyin()) */
	unsigned src;
	bool str;
	size_t rlen;
};
int d_prog_copyout(const struct d_prog *prog, struct d_copyout *co,
		   const char **why);

/*
 * What an address of a traced process is, as the consumer finds it
 * (struct d_fire's usym), for ustack() frames, ufunc(), umod(), usym(),
 * uaddr() and printf's %A and %a.  The strings stay valid for the run.
 */
struct d_usym {
	const char *mod;  /* the module's file name (basename) */
	const char *sym;  /* the function (demangled unless -x mangled);
			     NULL: no symbol covers the address */
	uint64_t off;	  /* the address less the function's start */
	const char *file; /* with D_USYM_LINE: the source file, or NULL */
	unsigned line;
};
#define D_USYM_RET 0x1	  /* a return address: the call before it is
			     looked up, the offset is the address's */
#define D_USYM_LINE 0x2	  /* the source file and line too (DWARF) */
#define D_USYM_KERNEL 0x4 /* a kernel address (printf's %a) */

/* A probe as the D program sees it (constant for the probe's life). */
struct d_probe {
	unsigned id;	  /* dtrace -l ID */
	const char *prov; /* as listed: myapp1234, dtrace */
	const char *mod, *func, *name;
	unsigned nargs;		/* declared (translated) arguments */
	const char *const *argtypes; /* nargs type names, may be NULL */
	/* errno is arg0's error: a system call's return, -4095..-1 its
	 * negation, else 0 (kprov_syscall.c's sys_fire()); at every other
	 * probe errno is 0 (a code generator computes it so) */
	bool errret;
};

/* One firing. */
struct d_fire {
	const struct d_probe *probe;
	unsigned epid; /* enabled probe ID: one per (clause, probe) */
	int cpu;
	/* ppid -1: the parent at the hit is not known (it exited before and
	 * the backend did not read it at the hit): reading it faults */
	pid_t pid, tid, ppid;
	/* uid, gid (D_NEED_CRED), as at the hit, when cred is set (else a
	 * run-time illegal operation) */
	bool cred;
	uid_t uid;
	gid_t gid;
	const char *execname;
	uint64_t timestamp;	/* ns, CLOCK_MONOTONIC */
	uint64_t walltimestamp; /* ns since the epoch */
	uint64_t vtimestamp; /* D_VTIME_UNKNOWN: reading it faults */
	uint64_t arg[D_MAXARGS];
	int errnum; /* errno: a failed system call's error, at its return */
	/*
	 * Strings the kernel copied at hit time for the bits of
	 * d_clause_strargs(): str[N] with strlen strlen[N] (no NUL needed),
	 * or NULL when not copied or when the copy faulted (then
	 * copyinstr(argN) reads through copyin below, and when that fails
	 * too it is a run-time error: invalid address).
	 */
	const char *str[D_MAXARGS];
	size_t strlen[D_MAXARGS];
	/*
	 * Copies made at the hit by the in-process recorder (drti/rec.c):
	 * bit N of strflt, the copy of str[N] faulted after its strlen[N]
	 * bytes (copyinstr() of argN reports it there, not read again
	 * later, when the address may be mapped); bit N of strcut, str[N]
	 * holds no NUL in its strlen[N] bytes and the string may go on (a
	 * larger strsize than the copy's reads it from the process).
	 */
	uint16_t strflt, strcut;
	/*
	 * Bytes the kernel copied at hit time at argument N's address for
	 * copyin(argN, size) (d_clause_memargs()): mem[N], memlen[N] of
	 * them, or NULL (then copyin() reads through copyin below).
	 */
	const void *mem[D_MAXARGS];
	size_t memlen[D_MAXARGS];
	/* read len bytes of the traced process at addr: 0 or -errno */
	int (*copyin)(void *ctx, pid_t pid, uint64_t addr, void *buf,
		      size_t len);
	void *copyin_ctx;
	/*
	 * progenyof(): the parent of process pid at the hit, or -1 where
	 * that cannot be proven (called with copyin_ctx, for the ancestors
	 * beyond ppid; 0 past pid 1, the chain's end).  NULL: only pid and
	 * ppid are known.
	 */
	pid_t (*parent_of)(void *ctx, pid_t pid);
	/*
	 * progenyof()'s chain of parents as the hit walked it (BPF's
	 * records, D_NEED_ANC): anc_st D_ANC_FULL (it reached 0) or
	 * D_ANC_CUT (it did not: links not read), the links beyond ppid
	 * nanc u32 tgids (unaligned, native order) at anc.  D_ANC_NONE:
	 * none was taken, parent_of() gives the links beyond ppid.
	 */
	const uint8_t *anc;
	uint16_t nanc;
	uint8_t anc_st;
	/*
	 * User stacks and names (consumer/ustack.c), called with
	 * ustack_ctx; NULL where the firing has none.  ustack: the firing
	 * thread's user stack, innermost first (where the probe fired,
	 * then return addresses), at most max into pcs; how many (0: no
	 * stack was captured).  usym: what address pc of process pid is
	 * (D_USYM_* flags); false when no module of it maps pc (s->mod is
	 * NULL then).
	 */
	unsigned (*ustack)(void *ctx, uint64_t *pcs, unsigned max);
	/*
	 * ustack_cut: after a call of ustack that gave every frame the
	 * unwinder found, the bytes of stack the hit copied when the
	 * unwinder stopped because it needed more of them than the copy
	 * holds and the process could not be read any more; else 0.  May
	 * be NULL.
	 */
	size_t (*ustack_cut)(void *ctx);
	bool (*usym)(void *ctx, pid_t pid, uint64_t pc, unsigned flags,
		     struct d_usym *s);
	void *ustack_ctx;
	/*
	 * uregs[]: the firing thread's user registers when the probe fired,
	 * taken with its stack (D_NEED_USTACK), D_UREGS_N of them in the
	 * DWARF order of the machine dtrace runs on (x86-64: rax rdx rcx
	 * rbx rsi rdi rbp rsp r8-r15 rip; aarch64: x0-x30 sp pc), or NULL
	 * where the firing has none.
	 */
	const uint64_t *uregs;
	/* curpsinfo->pr_psargs (D_NEED_PSARGS): the arguments joined by
	 * blanks, at most 79 bytes, as the hit found them; NULL where the
	 * firing has none (a run-time illegal operation) */
	const char *psargs;
	/* curpsinfo->pr_euid, pr_egid (D_NEED_ECRED), when ecred is set
	 * (else a run-time illegal operation) */
	bool ecred;
	uid_t euid;
	gid_t egid;
	/* curpsinfo->pr_pgid, pr_sid (D_NEED_SESS), when sess is set */
	bool sess;
	pid_t pgid, sid;
	/* copyout(), copyoutstr() (D_NEED_COPYOUT): 1 the BPF program
	 * wrote at the hit, -1 the write faulted, 0 no write was made (a
	 * fault too); 2 the firing thread is held at its probe until the
	 * clauses have run (consumer/dlhold.c): the clause writes now,
	 * through copyout_w (called with copyin_ctx: 0 or -errno) */
	int copyout;
	int (*copyout_w)(void *ctx, pid_t pid, uint64_t addr, const void *buf,
			 size_t len);
	/* set (where not NULL) once such a write is made: the process has
	 * changed since the hit, so the hit's copies above (str, mem) are
	 * not read any more, the process is, as DTrace reads it after its
	 * own write */
	bool *wrote;
};
#if defined(__aarch64__)
#define D_UREGS_N 33
#else
#define D_UREGS_N 17
#endif

/* d_run() results, or-ed. */
#define D_RUN_EXIT 0x1	/* exit() was called; d_exit_status() says the value */
#define D_RUN_ERROR 0x2 /* a run-time error was reported (on err) */
#define D_RUN_FAULT 0x4 /* ... a fault that fires dtrace:::ERROR */

/*
 * dtrace:::ERROR.  After a d_run() that returned D_RUN_FAULT, the
 * consumer fires ERROR in the faulting firing's context, before the
 * probe's later clauses: d_error_enter() sets f's arguments to DTrace's
 * (arg1 the faulting clause's epid, arg2 its action number, 0 for the
 * predicate, arg3 -1 (no DIF offsets here), arg4 the fault DTRACEFLT_*,
 * arg5 the bad address or 0) and puts the faulting firing's clause-local
 * variables aside; the consumer runs ERROR's clauses with f (its probe
 * the dtrace provider's ERROR) and d_error_leave() restores them.  A
 * fault in an ERROR clause returns D_RUN_ERROR alone: no message, no
 * recursion, counted for d_report_drops().
 */
void d_error_enter(struct d_prog *prog, struct d_fire *f);
void d_error_leave(struct d_prog *prog);

/*
 * Run clause `clause` for one firing: its predicate, then its
 * statements, in DTrace's order.  Unless quiet, a clause whose probe
 * fires prints DTrace's default line first ("%3d %6d %32s " style: CPU,
 * ID, FUNCTION:NAME; the column header "CPU     ID ... FUNCTION:NAME"
 * goes before the first such line), then what trace() and
 * printf() print.  Run-time errors (invalid address, division by zero)
 * print "dtrace: error on enabled probe ID N (ID M: p:m:f:n): invalid
 * address (0x...) in action #K" to err and skip the rest of the clause,
 * as DTrace does (and fire ERROR: D_RUN_FAULT).
 */
int d_run(struct d_prog *prog, unsigned clause, const struct d_fire *f,
	  FILE *out, FILE *err);

/*
 * d_run() of a clause whose predicate held and whose other statements
 * ran at the hit (a generated BPF program, ../consumer/kplan_out.c):
 * its printf() and trace() statements only, each argument's value
 * taken from pre, in order, instead of evaluated; an if whose branches
 * print takes its condition's value from pre too, in its place, and
 * runs the branch that value says (the one the program took).
 */
struct dv;
int d_run_pre(struct d_prog *prog, unsigned clause, const struct d_fire *f,
	      const struct dv *pre, FILE *out, FILE *err);
/*
 * ... of a speculating clause whose printf() and trace() values the
 * program computed at the hit (../consumer/kplan_spec.c's "Speculations"):
 * its predicate and speculate() run here, the values come from pre;
 * pre[fault_at] (-1: none) is a copy that faulted at the hit at address
 * fault_addr, reported where the clause would have read it; truth (0
 * or 1) is the predicate's value the program computed at the hit, -1
 * where it did not (the predicate is evaluated here).
 */
int d_run_spec(struct d_prog *prog, unsigned clause, const struct d_fire *f,
	       const struct dv *pre, int fault_at, uint64_t fault_addr,
	       int truth, FILE *out, FILE *err);
/*
 * ... of a clause whose predicate the program tested at the hit, which
 * held (../consumer/kplan_vin.c's vin_ptest(): it reads a self-> string
 * only the kernel keeps): d_run() without the predicate's test.
 */
int d_run_truth(struct d_prog *prog, unsigned clause, const struct d_fire *f,
		FILE *out, FILE *err);
/*
 * Is clause's predicate known false for f from the firing alone: one
 * that reads nothing but literals, the firing's arguments (arg0..arg11)
 * and the builtins a record carries (pid, tid, cpu, execname, uid, gid,
 * the probe's names: stmt.c's record_key()), with operators, casts and ?:,
 * and that evaluates to false without a fault?  For a clause the
 * consumer may not run from a record (its variables are the kernel's):
 * one whose predicate is false there does nothing, so not running it is
 * exact (../consumer/records.c's hit_run()).
 */
bool d_pred_false(struct d_prog *prog, unsigned clause, const struct d_fire *f);
/*
 * ... of a speculating clause the kernel ran whole (its steps on the
 * buffers' words included), stepped where it reached a speculate(),
 * commit() or discard(): its record, made from pre, into *rec
 * (malloc()ed), not written, where out is NULL (a held record); else
 * written to out (the clause's own record, at its place); false where
 * it makes none.
 */
bool d_run_kspec(struct d_prog *prog, unsigned clause, const struct d_fire *f,
		 const struct dv *pre, bool stepped, FILE *out, char **rec,
		 size_t *rlen);

/*
 * d_run_fault()'s kinds: an invalid address (addr); an illegal
 * operation (a vtimestamp whose clock was lost, a speculation's ID past
 * nspec); out of scratch space (a copy past what the clause run may
 * copy); and a store one byte below a copy of no bytes
 * (copyin(a, 0)[-1] = 0), an invalid address in the clause run's
 * scratch, which d_run_fault() takes there as d_run()'s store would
 */
enum d_run_flt {
	D_RUNF_ADDR,
	D_RUNF_ILLOP,
	D_RUNF_NOSCRATCH,
	D_RUNF_BELOW,
};

/*
 * Clause `clause`, which ran elsewhere (a generated BPF program, in the
 * kernel) for this firing, faulted there in DTrace's action number
 * action (0: the predicate), a fault of kind kind (addr the invalid
 * address of a D_RUNF_ADDR, else not read): report it as d_run()
 * reports its own faults, with the same result (D_RUN_ERROR |
 * D_RUN_FAULT, or D_RUN_ERROR alone at dtrace:::ERROR).
 */
int d_run_fault(struct d_prog *prog, unsigned clause, const struct d_fire *f,
		int action, enum d_run_flt kind, uint64_t addr, FILE *err);

/*
 * The string of the traced process at addr, at most max - 1 bytes, read
 * now as d_run() reads copyinstr(argN) when the record holds no copy
 * (run.c's d_read_user_str(), through f's copyin): a copy the probe
 * could not make (../consumer/kplan_out.c, a page not yet touched),
 * read when dtrace runs the record, as the record path reads it.  The
 * string, malloc'd (the caller frees it); NULL where that read faults
 * too, the fault's address in *faddr.
 */
char *d_read_str_late(struct d_prog *prog, const struct d_fire *f,
		      uint64_t addr, size_t max, uint64_t *faddr);

int d_exit_status(const struct d_prog *prog);

/*
 * The program uses a destructive action (system(), stop(), raise())
 * and the destructive option (-w) is not set: the consumer refuses to
 * trace, as DTrace does ("could not enable tracing: Destructive actions
 * not allowed").
 */
bool d_destructive_refused(const struct d_prog *prog);

/*
 * At the end (exit(), Ctrl-C, target exit), after the END clauses: what
 * dtrace(1) prints when tracing stops, a newline (even when quiet and
 * without aggregations), then every aggregation printa() has not
 * printed, in DTrace's layout: in the order the program names them,
 * entries sorted by value then key (aggsortrev/aggsortkey honoured).
 */
void d_print_aggs(struct d_prog *prog, FILE *out);

/*
 * A size as the options give it: bytes, with an optional k, m or g
 * suffix (powers of 1024), at most 1 GiB.  0, or -1 for anything else.
 */
int d_parse_size(const char *s, size_t *bytes);

/*
 * Drops counted since the last report, on err as dtrace(1) reports them
 * ("dtrace: 2 failed speculations (no speculative buffer available)",
 * "dtrace: 1 speculative drop", "dtrace: 1 error in ERROR probe
 * enabling"); d_run() reports by itself at most once
 * a second, the consumer calls this when tracing stops.
 */
void d_report_drops(struct d_prog *prog, FILE *err);

/*
 * Speculations whose buffers' words the kernel keeps (spec.c's "Held
 * generations"; doc/DESIGN.md §8, "Speculations in the kernel"):
 * the tags of the records, each handed over once, in the order the
 * records are run or earlier (a look ahead).  d_kspec_open(): a
 * speculation() tag, the generation of ID id opened at count c0 (id
 * 0: a failed speculation, counted: hand it over at its own place).
 * d_kspec_hold(): a speculate() tag that found its buffer active: rec,
 * len bytes, the record its clause made (NULL: the sequence has no
 * record), held at {id, seq}; stamp its hit's stamp where it is handed
 * over ahead of its place, 0 at its place (it has run).
 * d_kspec_ahead(): a commit() or discard() tag that found its buffer
 * active at count n, in hand before its place (the look ahead).
 * d_kspec_close(): such a tag at its own place, handed over only once
 * every tag whose kernel step came before its own is in hand (after a
 * barrier and one more read of the ring: consumer/kspec_read.c; the
 * tags of the records lost are the run's drops), the closes among them
 * told by d_kspec_ahead() (told: this one too): the generation it
 * closed is decided, its records in sequence order against specsize
 * (drops counted), a commit's written to out.  d_kspec_end(): tracing
 * stopped; the holds stamped after until (an exit()'s stamp, or
 * UINT64_MAX: handed ahead, their place never run) are forgotten
 * uncounted, the generations never closed are decided (drops counted)
 * and freed.  d_kspec_lost(): a record was lost after its step (the
 * ring's key-0 drops grew): every record held, and every one handed
 * over from then on, is a drop; nothing more is printed from a close;
 * err told once.
 */
void d_kspec_open(struct d_prog *prog, uint32_t id, uint64_t c0);
void d_kspec_hold(struct d_prog *prog, uint32_t id, uint64_t seq,
		  uint64_t stamp, const char *rec, size_t len);
void d_kspec_ahead(struct d_prog *prog, uint32_t id, uint64_t n);
void d_kspec_close(struct d_prog *prog, uint32_t id, uint64_t n, bool commit,
		   bool told, FILE *out);
void d_kspec_end(struct d_prog *prog, uint64_t until);
void d_kspec_lost(struct d_prog *prog, FILE *err);
/* ... the sequences a close found not in hand, no record lost (the
 * reading rule broken: 0 in every run that keeps it) */
uint64_t d_kspec_missing(const struct d_prog *prog);

/* A thread exited: forget its self-> variables. */
void d_thread_exit(struct d_prog *prog, pid_t tid);
/* How many self-> variables are live, of all threads (dtrace -v). */
size_t d_self_live(const struct d_prog *prog);

#endif /* USDT_DTRACE_DLANG_H */
