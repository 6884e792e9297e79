// SPDX-License-Identifier: MIT
/*
 * func.c - the builtin variables and the functions of the D language
 * (dtrace-G/d/): their names (the tables expr.c resolves identifiers
 * with), the kinds of their arguments and results (d_check_func(), for
 * check.c), and what they compute at run time (d_eval_func(), for
 * run.c's evaluator).  One place per function: adding one is a table
 * row, a case in d_eval_func(), and a line in dtrace(1).
 *
 * The string functions behave as illumos DTrace's: substr() counts a
 * negative index from the end and a negative length from the end too
 * (Perl's rules, clamped to the string); index() and rindex() search
 * from an optional position, -1 when not found; strstr() and strtok()
 * give NULL (read as "") when there is nothing; strtok(NULL, delims)
 * goes on with the string of the last strtok() of the same firing;
 * basename() and dirname() follow basename(1)/dirname(1) ("." and "/"
 * for the empty and the all-slashes path); lltostr(v, base) writes
 * bases 8 and 16 with C's 0 and 0x prefixes and base 10 signed, other
 * bases unsigned; strtoll(s, base) reads an optional sign and, in base
 * 16, an optional 0x, up to the first character not a digit of base.
 * A base outside 2..36 is a run-time "illegal operation", as in DTrace.
 * Every string result is cut to strsize - 1 bytes.
 *
 * Taint (struct dv's tn): copyinstr()'s result is tainted, and a string
 * result of any function is tainted when a string argument was (or, for
 * strtok(NULL, ...), the string it goes on with), so text output escapes
 * what a traced process wrote however the script cut or joined it.
 *
 * progenyof(pid) is 1 when the firing process is pid or a descendant:
 * its own pid and ppid come with the firing, the ancestors beyond
 * with it too where the backend walked them at the hit (struct d_fire's
 * anc), else through the consumer's parent_of(), which gives only
 * links it can prove were the hit's; a walk that meets one it cannot
 * before the chain's end at pid 0 faults (progenyof() below).  The named
 * constants (d_consts: signals, errno values, DTRACEFLT_*, uregs[]'s
 * R_*) are int literals to the parser.  rand() is a
 * 64-bit xorshift generator seeded per program from the clock; like
 * DTrace's it is for sampling, not for secrets.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d_impl.h"

/* ------------------------------------------------------------------ */
/* The names the parser resolves (check.c and run.c index these tables
 * by the node's sub) */

const struct d_builtin d_builtins[] = {
	{ "pid", B_PID, 0, 4, 1 },
	{ "ppid", B_PPID, 0, 4, 1 },
	{ "tid", B_TID, 0, 4, 1 },
	{ "uid", B_UID, 0, 4, 0 },
	{ "gid", B_GID, 0, 4, 0 },
	{ "execname", B_EXECNAME, 1, 8, 0 },
	{ "timestamp", B_TIMESTAMP, 0, 8, 0 },
	{ "vtimestamp", B_VTIMESTAMP, 0, 8, 0 },
	{ "walltimestamp", B_WALLTIMESTAMP, 0, 8, 0 },
	{ "cpu", B_CPU, 0, 4, 1 },
	{ "probeprov", B_PROBEPROV, 1, 8, 0 },
	{ "probemod", B_PROBEMOD, 1, 8, 0 },
	{ "probefunc", B_PROBEFUNC, 1, 8, 0 },
	{ "probename", B_PROBENAME, 1, 8, 0 },
	{ "id", B_ID, 0, 4, 0 },
	{ "epid", B_EPID, 0, 4, 0 },
	{ "errno", B_ERRNO, 0, 4, 1 },
	{ "ucaller", B_UCALLER, 0, 8, 0 },
	/* the kernel's caller: a user probe has none here (run.c) */
	{ "caller", B_CALLER, 0, 8, 0 },
	{ "ustackdepth", B_USTACKDEPTH, 0, 4, 0 },
	/* no identifier: curpsinfo->pr_psargs stands for it */
	{ "curpsinfo->pr_psargs", B_PSARGS, 1, 8, 0 },
	{ "curpsinfo->pr_euid", B_EUID, 0, 4, 0 },
	{ "curpsinfo->pr_egid", B_EGID, 0, 4, 0 },
	{ "curpsinfo->pr_pgid", B_PGID, 0, 4, 1 },
	{ "curpsinfo->pr_sid", B_SID, 0, 4, 1 },
};

/*
 * curpsinfo->FIELD: DTrace's psinfo_t of the firing process, for the
 * fields a hit records: each is the builtin variable with the same value
 * (pr_fname, a char[16] in DTrace, reads as execname, the same name cut
 * to 15 bytes); pr_psargs (DTrace's char[80], the arguments joined by
 * blanks) is the process's argument area, pr_euid and pr_egid the
 * thread's effective ids, pr_pgid and pr_sid its process group and
 * session, as the BPF backend's record copies them at the hit (the
 * consumer's psargs.c).  The others are refused: pr_argc, pr_argv and
 * pr_envp are read from the process's memory in DTrace, which a hit
 * does not record here; the rest
 * are Solaris's (zones, projects, tasks, pools, contracts) or
 * accounting a hit does not take.
 */
static const struct {
	const char *field, *builtin;
} psinfo_fields[] = {
	{ "pr_pid", "pid" },
	{ "pr_ppid", "ppid" },
	{ "pr_uid", "uid" },
	{ "pr_gid", "gid" },
	{ "pr_fname", "execname" },
	{ "pr_psargs", "curpsinfo->pr_psargs" },
	{ "pr_euid", "curpsinfo->pr_euid" },
	{ "pr_egid", "curpsinfo->pr_egid" },
	{ "pr_pgid", "curpsinfo->pr_pgid" },
	{ "pr_sid", "curpsinfo->pr_sid" },
};

static const char *const psinfo_unsupp[] = {
	"pr_flag",  "pr_nlwp",
	"pr_addr",	 "pr_size",    "pr_rssize",  "pr_ttydev",
	"pr_pctcpu", "pr_pctmem", "pr_start",  "pr_time",    "pr_ctime",
	"pr_wstat", "pr_argc",    "pr_argv",    "pr_envp",
	"pr_dmodel", "pr_taskid", "pr_projid", "pr_nzomb",   "pr_poolid",
	"pr_zoneid", "pr_contract", "pr_lwp",
};

struct node *d_psinfo_member(struct parser *ps, const struct tok *t)
{
	struct tok f;
	struct node *n;
	unsigned i, b;

	if (!d_is_op(ps, OP_ARROW))
		d_perrt(ps, D_IDENT_UNSUPP, t->line, t->col,
			"curpsinfo is not supported as a value: read its "
			"fields (curpsinfo->pr_pid)");
	d_lex(ps);
	f = ps->tk;
	if (f.t != TK_ID)
		d_syntax_error(ps);
	d_lex(ps);
	for (i = 0; i < sizeof(psinfo_fields) / sizeof(psinfo_fields[0]); i++)
		if (strcmp(psinfo_fields[i].field, f.s) == 0)
			break;
	if (i == sizeof(psinfo_fields) / sizeof(psinfo_fields[0])) {
		for (b = 0; b < sizeof(psinfo_unsupp) / sizeof(psinfo_unsupp[0]);
		     b++)
			if (strcmp(psinfo_unsupp[b], f.s) == 0)
				d_perrt(ps, D_IDENT_UNSUPP, f.line, f.col,
					"curpsinfo->%s is not supported: a "
					"hit records the process's pr_pid, "
					"pr_ppid, pr_pgid, pr_sid, pr_uid, "
					"pr_gid, pr_euid, pr_egid, pr_fname "
					"and pr_psargs only",
					f.s);
		d_perrt(ps, D_TYPE_MEMBER, f.line, f.col,
			"%s is not a member of psinfo_t", f.s);
	}
	for (b = 0; b < d_nbuiltins; b++)
		if (strcmp(d_builtins[b].name, psinfo_fields[i].builtin) == 0)
			break;
	n = d_mknode(ps, N_BUILTIN, t);
	n->sub = (int)b;
	return n;
}

const struct d_func d_funcs[] = {
	{ "copyinstr", F_COPYINSTR, 1, 2, "pi", 's', 8, 0 },
	/* mem.c: a void * into the firing's scratch */
	{ "copyin", F_COPYIN, 2, 2, "pi", 'i', 8, 0 },
	{ "strlen", F_STRLEN, 1, 1, "s", 'i', 8, 0 },
	{ "stringof", F_STRINGOF, 1, 1, "a", 's', 8, 0 },
	{ "lltostr", F_LLTOSTR, 1, 2, "ii", 's', 8, 0 },
	{ "strjoin", F_STRJOIN, 2, 2, "ss", 's', 8, 0 },
	{ "basename", F_BASENAME, 1, 1, "s", 's', 8, 0 },
	{ "dirname", F_DIRNAME, 1, 1, "s", 's', 8, 0 },
	{ "substr", F_SUBSTR, 2, 3, "sii", 's', 8, 0 },
	{ "index", F_INDEX, 2, 3, "ssi", 'i', 4, 1 },
	{ "rindex", F_RINDEX, 2, 3, "ssi", 'i', 4, 1 },
	{ "strstr", F_STRSTR, 2, 2, "ss", 's', 8, 0 },
	{ "strtok", F_STRTOK, 2, 2, "ts", 's', 8, 0 },
	{ "toupper", F_TOUPPER, 1, 1, "s", 's', 8, 0 },
	{ "tolower", F_TOLOWER, 1, 1, "s", 's', 8, 0 },
	{ "strtoll", F_STRTOLL, 1, 2, "si", 'i', 8, 1 },
	{ "rand", F_RAND, 0, 0, "", 'i', 4, 1 },
	{ "htons", F_HTONS, 1, 1, "i", 'i', 2, 0 },
	{ "ntohs", F_HTONS, 1, 1, "i", 'i', 2, 0 },
	{ "htonl", F_HTONL, 1, 1, "i", 'i', 4, 0 },
	{ "ntohl", F_HTONL, 1, 1, "i", 'i', 4, 0 },
	{ "htonll", F_HTONLL, 1, 1, "i", 'i', 8, 0 },
	{ "ntohll", F_HTONLL, 1, 1, "i", 'i', 8, 0 },
	{ "progenyof", F_PROGENYOF, 1, 1, "i", 'i', 4, 1 },
	{ "speculation", F_SPECULATION, 0, 0, "", 'i', 4, 1 },
	/* stack.c: their values print as stacks and names */
	{ "ustack", F_USTACK, 0, 2, "ii", 's', 8, 0 },
	{ "jstack", F_JSTACK, 0, 2, "ii", 's', 8, 0 },
	{ "ufunc", F_UFUNC, 1, 1, "i", 's', 8, 0 },
	{ "umod", F_UMOD, 1, 1, "i", 's', 8, 0 },
	{ "usym", F_USYM, 1, 1, "i", 's', 8, 0 },
	{ "uaddr", F_UADDR, 1, 1, "i", 's', 8, 0 },
	/* mem.c: scratch memory, and copies into it and out of it */
	{ "alloca", F_ALLOCA, 1, 1, "i", 'i', 8, 0 },
	{ "bcopy", F_BCOPY, 3, 3, "ppi", 'v', 8, 0 },
	{ "copyinto", F_COPYINTO, 3, 3, "pip", 'v', 8, 0 },
	{ "strchr", F_STRCHR, 2, 2, "si", 's', 8, 0 },
	{ "strrchr", F_STRRCHR, 2, 2, "si", 's', 8, 0 },
	/* destructive (-w): they write the traced process's memory */
	{ "copyout", F_COPYOUT, 3, 3, "ppi", 'v', 8, 0 },
	{ "copyoutstr", F_COPYOUTSTR, 3, 3, "spi", 'v', 8, 0 },
};

const unsigned d_nbuiltins = sizeof(d_builtins) / sizeof(d_builtins[0]);
const unsigned d_nfuncs = sizeof(d_funcs) / sizeof(d_funcs[0]);

/*
 * Names that stand for int constants in scripts, as DTrace's
 * /usr/lib/dtrace/{signal,errno,unistd}.d define them: the signals and
 * the errno values of Linux (from the C library's headers: the numbers
 * the traced programs use), and DTrace's fault codes (ERROR's arg4).
 * Not here: SIGRTMIN and SIGRTMAX, whose value a program sees depends
 * on its C library (glibc keeps the kernel's first two for itself).
 */
#define C(name) { #name, name }
const struct d_const d_consts[] = {
	C(SIGHUP),
	C(SIGINT),
	C(SIGQUIT),
	C(SIGILL),
	C(SIGTRAP),
	C(SIGABRT),
	C(SIGIOT),
	C(SIGBUS),
	C(SIGFPE),
	C(SIGKILL),
	C(SIGUSR1),
	C(SIGSEGV),
	C(SIGUSR2),
	C(SIGPIPE),
	C(SIGALRM),
	C(SIGTERM),
	C(SIGSTKFLT),
	C(SIGCHLD),
	C(SIGCLD),
	C(SIGCONT),
	C(SIGSTOP),
	C(SIGTSTP),
	C(SIGTTIN),
	C(SIGTTOU),
	C(SIGURG),
	C(SIGXCPU),
	C(SIGXFSZ),
	C(SIGVTALRM),
	C(SIGPROF),
	C(SIGWINCH),
	C(SIGIO),
	C(SIGPOLL),
	C(SIGPWR),
	C(SIGSYS),
	C(EPERM),
	C(ENOENT),
	C(ESRCH),
	C(EINTR),
	C(EIO),
	C(ENXIO),
	C(E2BIG),
	C(ENOEXEC),
	C(EBADF),
	C(ECHILD),
	C(EAGAIN),
	C(ENOMEM),
	C(EACCES),
	C(EFAULT),
	C(ENOTBLK),
	C(EBUSY),
	C(EEXIST),
	C(EXDEV),
	C(ENODEV),
	C(ENOTDIR),
	C(EISDIR),
	C(EINVAL),
	C(ENFILE),
	C(EMFILE),
	C(ENOTTY),
	C(ETXTBSY),
	C(EFBIG),
	C(ENOSPC),
	C(ESPIPE),
	C(EROFS),
	C(EMLINK),
	C(EPIPE),
	C(EDOM),
	C(ERANGE),
	C(EDEADLOCK),
	C(ENAMETOOLONG),
	C(ENOLCK),
	C(ENOSYS),
	C(ENOTEMPTY),
	C(ELOOP),
	C(ENOMSG),
	C(EIDRM),
	C(ECHRNG),
	C(EL2NSYNC),
	C(EL3HLT),
	C(EL3RST),
	C(ELNRNG),
	C(EUNATCH),
	C(ENOCSI),
	C(EL2HLT),
	C(EBADE),
	C(EBADR),
	C(EXFULL),
	C(ENOANO),
	C(EBADRQC),
	C(EBADSLT),
	C(EBFONT),
	C(ENOSTR),
	C(ENODATA),
	C(ETIME),
	C(ENOSR),
	C(ENONET),
	C(ENOPKG),
	C(EREMOTE),
	C(ENOLINK),
	C(EADV),
	C(ESRMNT),
	C(ECOMM),
	C(EPROTO),
	C(EMULTIHOP),
	C(EDOTDOT),
	C(EBADMSG),
	C(EOVERFLOW),
	C(ENOTUNIQ),
	C(EBADFD),
	C(EREMCHG),
	C(ELIBACC),
	C(ELIBBAD),
	C(ELIBSCN),
	C(ELIBMAX),
	C(ELIBEXEC),
	C(EILSEQ),
	C(ERESTART),
	C(ESTRPIPE),
	C(EUSERS),
	C(ENOTSOCK),
	C(EDESTADDRREQ),
	C(EMSGSIZE),
	C(EPROTOTYPE),
	C(ENOPROTOOPT),
	C(EPROTONOSUPPORT),
	C(ESOCKTNOSUPPORT),
	C(ENOTSUP),
	C(EPFNOSUPPORT),
	C(EAFNOSUPPORT),
	C(EADDRINUSE),
	C(EADDRNOTAVAIL),
	C(ENETDOWN),
	C(ENETUNREACH),
	C(ENETRESET),
	C(ECONNABORTED),
	C(ECONNRESET),
	C(ENOBUFS),
	C(EISCONN),
	C(ENOTCONN),
	C(ESHUTDOWN),
	C(ETOOMANYREFS),
	C(ETIMEDOUT),
	C(ECONNREFUSED),
	C(EHOSTDOWN),
	C(EHOSTUNREACH),
	C(EALREADY),
	C(EINPROGRESS),
	C(ESTALE),
	C(EUCLEAN),
	C(ENOTNAM),
	C(ENAVAIL),
	C(EISNAM),
	C(EREMOTEIO),
	C(EDQUOT),
	C(ENOMEDIUM),
	C(EMEDIUMTYPE),
	C(ECANCELED),
	C(ENOKEY),
	C(EKEYEXPIRED),
	C(EKEYREVOKED),
	C(EKEYREJECTED),
	C(EOWNERDEAD),
	C(ENOTRECOVERABLE),
	C(ERFKILL),
	C(EHWPOISON),
	C(EWOULDBLOCK),
	C(EDEADLOCK),
	C(ENOTSUP),
	{ "DTRACEFLT_UNKNOWN", D_DTRACEFLT_UNKNOWN },
	{ "DTRACEFLT_BADADDR", D_DTRACEFLT_BADADDR },
	{ "DTRACEFLT_BADALIGN", D_DTRACEFLT_BADALIGN },
	{ "DTRACEFLT_ILLOP", D_DTRACEFLT_ILLOP },
	{ "DTRACEFLT_DIVZERO", D_DTRACEFLT_DIVZERO },
	{ "DTRACEFLT_NOSCRATCH", D_DTRACEFLT_NOSCRATCH },
	{ "DTRACEFLT_KPRIV", D_DTRACEFLT_KPRIV },
	{ "DTRACEFLT_UPRIV", D_DTRACEFLT_UPRIV },
	{ "DTRACEFLT_TUPOFLOW", D_DTRACEFLT_TUPOFLOW },
	{ "DTRACEFLT_BADSTACK", D_DTRACEFLT_BADSTACK },
	{ "DTRACEFLT_LIBRARY", D_DTRACEFLT_LIBRARY },
#if defined(__aarch64__)
	/* uregs[]'s indexes (stack.c): Linux DTrace's for aarch64 */
#define A64R(n) { "R_X" #n, n }
	A64R(0),  A64R(1),  A64R(2),  A64R(3),	A64R(4),  A64R(5),  A64R(6),
	A64R(7),  A64R(8),  A64R(9),  A64R(10), A64R(11), A64R(12), A64R(13),
	A64R(14), A64R(15), A64R(16), A64R(17), A64R(18), A64R(19), A64R(20),
	A64R(21), A64R(22), A64R(23), A64R(24), A64R(25), A64R(26), A64R(27),
	A64R(28), A64R(29), A64R(30),
#undef A64R
	{ "R_SP", D_R_A64_SP },
	{ "R_PC", D_R_A64_PC },
	{ "R_PSTATE", D_R_A64_PSTATE },
	{ "R_FP", 29 },
#else
	/* uregs[]'s indexes (stack.c): Linux DTrace's for x86-64, the
	 * slots of the kernel's struct pt_regs, and the i386 and generic
	 * names that stand for them */
	{ "R_R15", D_R_R15 },
	{ "R_R14", D_R_R14 },
	{ "R_R13", D_R_R13 },
	{ "R_R12", D_R_R12 },
	{ "R_RBP", D_R_RBP },
	{ "R_RBX", D_R_RBX },
	{ "R_R11", D_R_R11 },
	{ "R_R10", D_R_R10 },
	{ "R_R9", D_R_R9 },
	{ "R_R8", D_R_R8 },
	{ "R_RAX", D_R_RAX },
	{ "R_RCX", D_R_RCX },
	{ "R_RDX", D_R_RDX },
	{ "R_RSI", D_R_RSI },
	{ "R_RDI", D_R_RDI },
	{ "R_ERR", D_R_ERR },
	{ "R_RIP", D_R_RIP },
	{ "R_CS", D_R_CS },
	{ "R_RFL", D_R_RFL },
	{ "R_RSP", D_R_RSP },
	{ "R_SS", D_R_SS },
	{ "R_DS", D_R_DS },
	{ "R_ES", D_R_ES },
	{ "R_FS", D_R_FS },
	{ "R_GS", D_R_GS },
	{ "R_TRAPNO", D_R_TRAPNO },
	{ "R_EBX", D_R_RBX },
	{ "R_ECX", D_R_RCX },
	{ "R_EDX", D_R_RDX },
	{ "R_ESI", D_R_RSI },
	{ "R_EDI", D_R_RDI },
	{ "R_EBP", D_R_RBP },
	{ "R_EAX", D_R_RAX },
	{ "R_EIP", D_R_RIP },
	{ "R_EFL", D_R_RFL },
	{ "R_ESP", D_R_RSP },
	{ "R_PC", D_R_RIP },
	{ "R_FP", D_R_RBP },
	{ "R_SP", D_R_RSP },
	{ "R_PS", D_R_RFL },
	{ "R_R0", D_R_RAX },
	{ "R_R1", D_R_RBX },
#endif
};
#undef C
const unsigned d_nconsts = sizeof(d_consts) / sizeof(d_consts[0]);

bool d_const_lookup(const char *name, int64_t *v)
{
	for (unsigned i = 0; i < d_nconsts; i++)
		if (strcmp(d_consts[i].name, name) == 0) {
			*v = d_consts[i].value;
			return true;
		}
	return false;
}

/* ------------------------------------------------------------------ */
/* Kinds */

static const char *proto_name(char c)
{
	switch (c) {
	case 's':
		return "string";
	case 'p':
		return "uintptr_t";
	case 't':
		return "string or NULL";
	default:
		return "int";
	}
}
/*
 * Why copyout(buf, addr, size) (str: copyoutstr()) cannot be written at
 * the hit, or NULL when it can: what is wrong with the source first, as
 * that is what a script most often gets wrong (a buffer it builds).
 */
const char *d_copyout_why(const struct node *n, bool str)
{
	const struct node *b = n->args[0];
	int f = b->op == N_FUNC ? d_funcs[b->sub].id : -1;

	if (str && b->op == N_STR)
		;
	else if (str && f == F_COPYINSTR && b->nargs == 1 &&
		 b->args[0]->op == N_ARGN)
		;
	else if (!str && f == F_COPYIN && b->args[0]->op == N_ARGN &&
		 b->args[1]->op == N_INT)
		;
	else if (f == F_COPYIN || f == F_COPYINSTR)
		return str ? "its source is a string read at an address "
			     "other than an argument's (read when the clause "
			     "runs, after the hit)"
			   : "its source is bytes read at an address other "
			     "than an argument's, or of a computed size (read "
			     "when the clause runs, after the hit)";
	else if (f == F_ALLOCA)
		return "its source is alloca( )'s buffer, which the clause "
		       "fills (bcopy( ), copyinto( ), stores) only when it "
		       "runs in dtrace, after the hit";
	else if (b->op == N_FUNC)
		return str ? "its source is a string the clause computes (its "
			     "functions run in dtrace, after the hit)"
			   : "its source is a buffer the clause computes (its "
			     "functions run in dtrace, after the hit)";
	else
		return str ? "its source is a string the clause computes or "
			     "keeps (a variable's, an expression's), which "
			     "exists only when the clause runs in dtrace, "
			     "after the hit"
			   : "its source is a buffer the clause builds or "
			     "keeps (a variable's, an alloca( )'s, pointer "
			     "arithmetic), whose bytes exist only when the "
			     "clause runs in dtrace, after the hit";
	if (n->args[1]->op != N_ARGN)
		return "its destination is not an argument (argN), and the "
		       "program at the hit knows only the probe's arguments";
	if (n->args[2]->op != N_INT || n->args[2]->ival <= 0)
		return "its size is not a constant above 0, and the write at "
		       "the hit has a fixed length";
	return NULL;
}

/* Each argument against the function's prototype; the result's kind. */
int d_check_func(struct parser *ps, struct node *n, bool strict)
{
	const struct d_func *fn = &d_funcs[n->sub];

	for (unsigned i = 0; strict && i < n->nargs; i++) {
		char want = fn->args[i];
		int k = n->args[i]->kind;
		bool bad;

		if (k == T_ANY || want == 'a')
			continue;
		if (want == 't') /* strtok(NULL, ...): the integer 0 */
			bad = k == T_INT && !(n->args[i]->op == N_INT &&
					      n->args[i]->ival == 0);
		else
			bad = (want == 's') != (k == T_STR);
		if (bad)
			d_perrt(ps, D_PROTO_ARG, n->line, n->col,
			       "%s( ) argument #%u is incompatible with "
			       "prototype:\n\tprototype: %s\n\t argument: %s",
			       fn->name, i + 1, proto_name(want),
			       d_kind_name(k));
	}
	if (fn->id == F_USTACK || fn->id == F_JSTACK) {
		for (unsigned i = 0; i < n->nargs; i++)
			d_fold_int(ps, &n->args[i]);
		d_stack_check(ps, n);
	}
	if (fn->ret == 'v' && ps->void_ok != n)
		d_perrt(ps, D_FUNC_VOID, n->line, n->col,
		       "%s( ) has no value: it is a statement of its own",
		       fn->name);
	if (fn->id == F_ALLOCA) /* a void * into the scratch (mem.c) */
		n->ptr = D_PTR_VOID;
	/*
	 * DTrace writes before the probe returns; here the clause runs in
	 * dtrace after the hit, while the thread goes on, so the write is
	 * the BPF program's, at the hit (d_prog_copyout()): of bytes it
	 * has there, a string literal or what it reads at an argument's
	 * address (copyinstr(argA), copyin(argA, n)), to an argument's
	 * address, with a constant size.  A buffer the clause builds
	 * otherwise (alloca() and bcopy(), string functions) would need the
	 * clause run in the kernel, or the thread held until dtrace has run
	 * it: where the consumer can hold it (copyout_held: -c/-p targets,
	 * consumer/dlhold.c) any form is taken, else refused, d_copyout_why()
	 * saying which part.
	 */
	if (fn->id == F_COPYOUT || fn->id == F_COPYOUTSTR) {
		const char *why =
			ps->o && ps->o->copyout_held
				? NULL
				: d_copyout_why(n, fn->id == F_COPYOUTSTR);

		if (why)
			d_perrt(ps, D_IDENT_UNSUPP, n->line, n->col,
				"%s( ): %s; the BPF program writes at the hit, "
				"before the clause runs in dtrace, so only %s, "
				"to an argument's address, with a constant size "
				"(a -c or -p process is held at the probe "
				"instead, and takes any)",
				fn->name, why,
				fn->id == F_COPYOUT
					? "bytes it reads there "
					  "(copyout(copyin(argA, n), argN, size))"
					: "a literal or a string it reads there "
					  "(copyoutstr(copyinstr(argA), argN, "
					  "size))");
		ps->prog->uses_destructive = true;
	}
	return fn->ret == 's' ? T_STR : T_INT;
}

/* ------------------------------------------------------------------ */
/* Evaluation */

static struct dv str_n(struct ectx *x, const char *s, size_t n)
{
	if (n > x->p->strsize - 1)
		n = x->p->strsize - 1;
	return d_dv_str(d_ar_strndup(&x->scratch, s, n));
}

static const char *need_str(struct ectx *x, struct dv v)
{
	if (v.k != K_STR)
		d_fault(x, FLT_ILLOP, 0);
	return v.s;
}

/* lltostr(v, base): see the top of the file. */
static struct dv lltostr(struct ectx *x, int64_t v, int64_t base, bool sg)
{
	static const char dig[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	char buf[72], *e = buf + sizeof(buf) - 1;
	bool neg = sg && base == 10 && v < 0;
	uint64_t u = neg ? 0 - (uint64_t)v : (uint64_t)v;

	if (base < 2 || base > 36)
		d_fault(x, FLT_ILLOP, 0);
	*e = '\0';
	do {
		*--e = dig[u % (uint64_t)base];
		u /= (uint64_t)base;
	} while (u);
	if (base == 16) {
		*--e = 'x';
		*--e = '0';
	} else if (base == 8 && v != 0) {
		*--e = '0';
	}
	if (neg)
		*--e = '-';
	return str_n(x, e, strlen(e));
}

static int64_t strtoll_base(struct ectx *x, const char *s, int64_t base)
{
	bool neg = false;
	uint64_t v = 0;

	if (base < 2 || base > 36)
		d_fault(x, FLT_ILLOP, 0);
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (;; s++) {
		int c = tolower((unsigned char)*s), d;

		if (isdigit(c))
			d = c - '0';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	return (int64_t)(neg ? 0 - v : v);
}

/* basename(1) and dirname(1) of a path. */
static struct dv path_part(struct ectx *x, const char *s, bool dir)
{
	size_t end = strlen(s), start;

	if (!end)
		return d_dv_str(".");
	while (end > 0 && s[end - 1] == '/')
		end--;
	if (!end)
		return d_dv_str("/");
	for (start = end; start > 0 && s[start - 1] != '/'; start--)
		;
	if (!dir)
		return str_n(x, s + start, end - start);
	if (!start)
		return d_dv_str(".");
	while (start > 0 && s[start - 1] == '/')
		start--;
	if (!start)
		return d_dv_str("/");
	return str_n(x, s, start);
}

static struct dv substr(struct ectx *x, const char *s, int64_t idx,
			bool has_len, int64_t n)
{
	int64_t len = (int64_t)strlen(s);

	if (idx < 0) {
		idx += len;
		if (idx < 0) { /* before the start: what is left of n */
			if (has_len && n >= 0)
				n = n + idx < 0 ? 0 : n + idx;
			idx = 0;
		}
	}
	if (idx >= len)
		return d_dv_str("");
	if (!has_len)
		n = len - idx;
	else if (n < 0)
		n = len - idx + n < 0 ? 0 : len - idx + n;
	if (n > len - idx)
		n = len - idx;
	return str_n(x, s + idx, (size_t)n);
}

static int64_t str_index(const char *s, const char *t, bool has_pos,
			 int64_t pos, bool reverse)
{
	int64_t len = (int64_t)strlen(s), tl = (int64_t)strlen(t), i;

	if (!reverse) {
		pos = !has_pos || pos < 0 ? 0 : pos > len ? len : pos;
		for (i = pos; i + tl <= len; i++)
			if (strncmp(s + i, t, (size_t)tl) == 0)
				return i;
		return -1;
	}
	if (has_pos && pos < 0)
		return -1;
	if (!has_pos || pos > len - tl)
		pos = len - tl;
	for (i = pos; i >= 0; i--)
		if (strncmp(s + i, t, (size_t)tl) == 0)
			return i;
	return -1;
}

/* strtok(): the string of the firing's last strtok() goes on. */
static struct dv str_tok(struct ectx *x, struct dv sv, const char *delim)
{
	struct d_prog *p = x->p;
	const char *s;
	size_t b, e;

	if (sv.k == K_STR) {
		free(p->tok_str);
		p->tok_str = xstrdup(sv.s);
		p->tok_tn = sv.tn;
		if (strlen(p->tok_str) > p->strsize - 1)
			p->tok_str[p->strsize - 1] = '\0';
		p->tok_pos = 0;
	} else if (sv.i != 0) {
		d_fault(x, FLT_ILLOP, 0);
	}
	if (!p->tok_str)
		return d_dv_str("");
	s = p->tok_str;
	b = p->tok_pos + strspn(s + p->tok_pos, delim);
	if (!s[b]) {
		p->tok_pos = b;
		return d_dv_str("");
	}
	e = b + strcspn(s + b, delim);
	p->tok_pos = s[e] ? e + 1 : e;
	return str_n(x, s + b, e - b);
}

/*
 * progenyof(want): 1 where want is the firing process or on its chain of
 * parents as the chain stood at the hit (the hit's ppid, then
 * parent_of() for each link beyond), 0 where the chain ends, at pid 0
 * (the idle task, the parent of pid 1 and of kthreadd), without it: so
 * progenyof(0) is 1 for every process, as in DTrace.  A link nobody can
 * say was the hit's (-1: an ancestor gone or reparented before it was
 * read, no parent_of) before a match faults "illegal operation" rather
 * than answer a 0 that may be false.  No bound but the pids there can
 * be: a chain longer than PID_MAX_LIMIT links is a cycle (pid reuse
 * between reads), and faults too.  Where the record carries the chain
 * the hit walked (BPF, D_NEED_ANC: f->anc_st), the links are its, the
 * same 32 bits compared as the kernel would; 0 where that chain is
 * complete, and the same fault where it was cut (32 links, a read that
 * failed): parent_of() is not asked.
 */
#define D_PID_MAX_LIMIT (4u * 1024 * 1024) /* linux/threads.h's, 64-bit */

static int progenyof(struct ectx *x, pid_t want)
{
	const struct d_fire *f = x->f;
	pid_t cur = f->ppid;

	if (f->pid == want || want == 0)
		return 1;
	if (f->anc_st != D_ANC_NONE) { /* the chain the hit walked */
		uint32_t q = (uint32_t)want, a;

		if ((uint32_t)cur == q)
			return 1;
		for (uint16_t i = 0; i < f->nanc; i++) {
			memcpy(&a, f->anc + 4 * (size_t)i, 4);
			if (a == q)
				return 1;
		}
		if (f->anc_st == D_ANC_FULL)
			return 0;
		d_fault(x, FLT_ILLOP, 0); /* cut: no answer is exact */
	}
	for (uint32_t n = 0; n <= D_PID_MAX_LIMIT; n++) {
		if (cur == want)
			return 1;
		if (cur == 0)
			return 0; /* the chain's end: complete */
		if (cur < 0 || !f->parent_of)
			break;
		cur = f->parent_of(f->copyin_ctx, cur);
	}
	d_fault(x, FLT_ILLOP, 0);
}

static uint64_t next_rand(struct d_prog *p)
{
	uint64_t v = p->rand_state;

	if (!v)
		v = 0x9e3779b97f4a7c15ULL;
	v ^= v << 13;
	v ^= v >> 7;
	v ^= v << 17;
	p->rand_state = v;
	return v;
}

/*
 * copyinstr(): a string of the traced process, so always tainted.  Its
 * argument arg0..arg11 or args[N] reads the string the kernel copied at
 * hit time (d_arg_str()), any other integer the process's memory; a
 * string (args[N] of string type, already read) is cut to the size.
 */
static struct dv copyinstr(struct ectx *x, const struct node *n,
			   const struct dv *a)
{
	size_t max = x->p->strsize;
	struct dv idx, a0 = a[0];

	if (n->nargs > 1 && a[1].i >= 0 && (uint64_t)a[1].i + 1 < max)
		max = (size_t)a[1].i + 1;
	if (n->args[0]->op == N_ARGN)
		return d_dv_tstr(d_arg_str(x, (unsigned)n->args[0]->sub, max));
	if (n->args[0]->op == N_ARGS) {
		idx = d_eval(x, n->args[0]->a);
		if (idx.i >= 0 && idx.i < D_MAXARGS)
			return d_dv_tstr(d_arg_str(x, (unsigned)idx.i, max));
		a0 = d_eval(x, n->args[0]); /* out of range: its fault */
	}
	if (a0.k == K_STR)
		return d_dv_tstr(d_ar_strndup(
			&x->scratch, a0.s,
			strlen(a0.s) < max - 1 ? strlen(a0.s) : max - 1));
	return d_dv_tstr(d_read_user_str(x, (uint64_t)a0.i, max));
}

static struct dv eval_func(struct ectx *x, const struct node *n,
			   const struct dv *a)
{
	const struct d_func *fn = &d_funcs[n->sub];
	struct d_prog *p = x->p;
	char *s;

	switch (fn->id) {
	case F_COPYINSTR:
		return copyinstr(x, n, a);
	case F_COPYIN:
		return d_copyin(x, n, a);
	case F_STRLEN:
		return d_dv_int((int64_t)strlen(need_str(x, a[0])), 8, false);
	case F_STRJOIN: {
		const char *l = need_str(x, a[0]), *r = need_str(x, a[1]);
		size_t la = strlen(l), lb = strlen(r);

		s = d_ar_alloc(&x->scratch, la + lb + 1);
		memcpy(s, l, la);
		memcpy(s + la, r, lb + 1);
		return str_n(x, s, la + lb);
	}
	case F_LLTOSTR:
		return lltostr(x, a[0].i, n->nargs > 1 ? a[1].i : 10, true);
	case F_STRINGOF:
		if (a[0].k == K_STR)
			return a[0];
		if (n->args[0]->ptr) /* copyin()'s bytes (mem.c) */
			return d_mem_string(x, (uint64_t)a[0].i);
		return lltostr(x, a[0].i, 10, a[0].sg);
	case F_BASENAME:
	case F_DIRNAME:
		return path_part(x, need_str(x, a[0]), fn->id == F_DIRNAME);
	case F_SUBSTR:
		return substr(x, need_str(x, a[0]), a[1].i, n->nargs > 2,
			      a[2].i);
	case F_INDEX:
	case F_RINDEX:
		return d_dv_int(str_index(need_str(x, a[0]),
					  need_str(x, a[1]), n->nargs > 2,
					  a[2].i, fn->id == F_RINDEX),
				4, true);
	case F_STRSTR: {
		const char *h = need_str(x, a[0]), *f;

		f = strstr(h, need_str(x, a[1]));
		return f ? str_n(x, f, strlen(f)) : d_dv_str("");
	}
	case F_STRTOK:
		return str_tok(x, a[0], need_str(x, a[1]));
	case F_STRCHR:
	case F_STRRCHR: {
		/* the string from the first (last) c on, NULL ("") without;
		 * c is a char, as C's strchr() converts it (0: the end) */
		const char *h = need_str(x, a[0]), *f;
		char c = (char)a[1].i;

		f = fn->id == F_STRCHR ? strchr(h, c) : strrchr(h, c);
		return f ? str_n(x, f, strlen(f)) : d_dv_str("");
	}
	case F_ALLOCA:
		return d_alloca(x, a);
	case F_BCOPY:
		d_bcopy(x, a);
		return d_dv_int(0, 4, true);
	case F_COPYINTO:
		d_copyinto(x, a);
		return d_dv_int(0, 4, true);
	case F_COPYOUT: /* written at the hit (d_prog_copyout()) */
	case F_COPYOUTSTR:
		if (x->f->copyout == 2) /* the thread held at its probe */
			d_copyout_held(x, a, fn->id == F_COPYOUTSTR);
		else if (x->f->copyout < 0)
			d_fault(x, FLT_BADADDR, (uint64_t)a[1].i);
		else if (x->f->copyout == 0)
			d_fault(x, FLT_ILLOP, 0);
		return d_dv_int(0, 4, true);
	case F_TOUPPER:
	case F_TOLOWER: {
		struct dv r = str_n(x, need_str(x, a[0]), strlen(a[0].s));

		for (s = (char *)r.s; *s; s++)
			if (*s >= 'a' && *s <= 'z' && fn->id == F_TOUPPER)
				*s = (char)(*s - 'a' + 'A');
			else if (*s >= 'A' && *s <= 'Z' &&
				 fn->id == F_TOLOWER)
				*s = (char)(*s - 'A' + 'a');
		return r;
	}
	case F_STRTOLL:
		return d_dv_int(strtoll_base(x, need_str(x, a[0]),
					     n->nargs > 1 ? a[1].i : 10),
				8, true);
	case F_RAND:
		return d_dv_int((int64_t)(next_rand(p) >> 33), 4, true);
	case F_HTONS:
		return d_dv_int(htobe16((uint16_t)a[0].i), 2, false);
	case F_HTONL:
		return d_dv_int(htobe32((uint32_t)a[0].i), 4, false);
	case F_HTONLL:
		return d_dv_int((int64_t)htobe64((uint64_t)a[0].i), 8, false);
	case F_PROGENYOF:
		return d_dv_int(progenyof(x, (pid_t)a[0].i), 4, true);
	case F_SPECULATION:
		return d_dv_int(d_spec_alloc(x->p), 4, true);
	case F_USTACK:
	case F_JSTACK:
	case F_UFUNC:
	case F_UMOD:
	case F_USYM:
	case F_UADDR:
		return d_stack_eval(x, n, a);
	default:
		d_fault(x, FLT_ILLOP, 0);
	}
}

/*
 * A function: its arguments first (copyinstr()'s arg0..arg11 or
 * args[N] excepted: d_arg_str() reads the string the kernel copied, the
 * integer is not needed), then its result, which, when a string, is
 * tainted when any string argument was (struct dv) or strtok(NULL, ...)
 * goes on with a tainted string.
 */
struct dv d_eval_func(struct ectx *x, const struct node *n)
{
	const struct d_func *fn = &d_funcs[n->sub];
	struct dv a[3] = { 0 }, r;
	bool tn = false;
	unsigned i;

	for (i = 0; i < n->nargs && i < 3; i++) {
		if (fn->id == F_COPYINSTR && i == 0 &&
		    (n->args[0]->op == N_ARGN || n->args[0]->op == N_ARGS))
			continue;
		a[i] = d_eval(x, n->args[i]);
		if (a[i].k == K_STR && a[i].tn)
			tn = true;
	}
	if (fn->id == F_STRTOK && a[0].k != K_STR)
		tn = x->p->tok_tn;
	r = eval_func(x, n, a);
	if (r.k == K_STR && tn)
		r.tn = 1;
	return r;
}
