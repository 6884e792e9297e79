/* SPDX-License-Identifier: MIT */
/*
 * <sys/sdt.h> - statically defined tracing probes, from usdt-sdk.
 *
 * Put a probe into C, C++ or assembler code; tracers (bpftrace, perf,
 * gdb, bcc, systemtap and usdt-sdk's own dtrace) find it through an ELF
 * note and read its arguments while the program runs:
 *
 *	#include <sys/sdt.h>
 *
 *	DTRACE_PROBE2(myapp, query__start, sql, len);	(DTRACE_PROBE0..12)
 *	STAP_PROBE2(myapp, query__start, sql, len);	(the same)
 *	DTRACE_PROBE(myapp, tick);	(0 to 12 arguments, counted;
 *					 also STAP_PROBE, STAP_PROBEV)
 *
 * The header is installed as $(includedir)/usdt/sys/sdt.h, so that it never
 * replaces systemtap's <sys/sdt.h>: `pkg-config --cflags usdt` puts
 * $(includedir)/usdt first on the include path.  Only one <sys/sdt.h> is
 * used per translation unit (both use the _SYS_SDT_H guard).
 *
 * It is a drop-in for systemtap's header: code written for that one
 * compiles unchanged and gets notes of the same format.  It has the same
 * macros -- STAP_PROBE, STAP_PROBE1..12, DTRACE_PROBE, DTRACE_PROBE1..12
 * (and the 0 forms), STAP_PROBEV (whether or not SDT_USE_VARIADIC is
 * defined), its internal _SDT_PROBE(provider, name, n, (args)) that
 * LTTng-UST's tracepoint() calls, the same macros in assembler files,
 * and STAP_PROBE_ASM,
 * STAP_PROBE_ASM_TEMPLATE and STAP_PROBE_ASM_OPERANDS for probes inside
 * asm statements (see below) -- and honours the same switches:
 * _SDT_HAS_SEMAPHORES, STAP_SDT_V1 and STAP_SDT_V2 (see Semaphores) and
 * STAP_SDT_ARG_CONSTRAINT (see the end); _SDT_NOTE_TYPE (3) and
 * _SDT_NOTE_NAME say which notes it writes, as systemtap's do.  Where the two differ, the
 * notes are ones more tracers read: floating-point arguments (see
 * Arguments), one-byte registers, and the probe's NOPs.
 *
 * What a probe costs.  Untraced: eleven bytes of NOPs in the instruction
 * stream, which the CPU decodes and retires without executing anything;
 * plus whatever it takes to have the arguments somewhere a tracer can
 * find them (usually nothing: they are in registers already, but the
 * compiler may have to keep a value alive or, with clang, store it to the
 * stack; a floating-point value is copied from its SSE register to a
 * general one or to the stack).  Nothing is called and no memory is
 * read.  Traced: the kernel puts a uprobe on the site, and each hit costs
 * a trap into the kernel and back (about 0.65 us measured on Linux 6.18
 * with bpftrace).
 *
 * What a probe emits.  At the probe, the bytes
 *
 *	90				nop		<- the probe address
 *	66 2e 0f 1f 84 00 00 00 00 00	cs nopw 0x0(%rax,%rax,1)
 *
 * and in section .note.stapsdt a note (type 3, owner "stapsdt") holding
 * the probe address, the address of .stapsdt.base (a one-byte section in
 * a COMDAT group, which lets a tracer compute how far the file was moved
 * by prelinking), the semaphore address or 0, the provider, the probe
 * name and the argument string:
 *
 *	$ readelf -n prog
 *	  stapsdt              0x00000040       NT_STAPSDT (SystemTap probe descriptors)
 *	    Provider: myapp
 *	    Name: query__start
 *	    Location: 0x0000000000001139, Base: 0x0000000000002004, Semaphore: 0x0000000000000000
 *	    Arguments: 8@%rdi -4@%esi
 *
 * The note is not loaded into memory.  In a C++ inline function (a COMDAT
 * group) the note joins the function's group, so the linker keeps the
 * note of the copy it keeps and drops the others.
 *
 * Why a 1-byte NOP then a 10-byte NOP, and not the classic single `nop`
 * or a 5-byte NOP.  Since Linux 6.18 a uprobe on any 5-byte NOP is
 * optimized: the kernel replaces the NOP with a call to a trampoline,
 * and that call pushes its return address, and the trampoline more,
 * below the stack pointer (and a child forked afterwards, which lacks
 * the trampoline, dies at the probe: doc/DESIGN.md §4).  A leaf
 * function may keep live data there (the x86-64 red zone, 128 bytes
 * below %rsp), and a probe written in inline assembly can sit in a leaf
 * function -- clang even stores probe arguments in the red zone and
 * names them -2(%rsp) in the note.  Traced, such a probe would corrupt
 * the program.  A uprobe on a 1-byte NOP is never optimized that way: it
 * traps, and the trap writes nothing on the user stack.  The 10-byte NOP
 * that follows leaves room for kernels to optimize the pair later without
 * touching the red zone (a trampoline reached after moving %rsp below
 * it); libbpf's usdt.h emits the same eleven bytes for that reason, so
 * probes of both headers would gain alike.  tests/run-sdt-redzone.sh
 * shows both sides on this kernel.
 *
 * Arguments.  Each argument becomes `[-]SIZE@OPERAND`: `-` when its type
 * is signed, SIZE its size in bytes (arrays count as pointers), OPERAND
 * wherever the compiler put the value at the probe: a register
 * (`-4@%esi`), memory (`8@16(%rsp)`, `-4@-20(%rbp)`) or a constant
 * (`-4@$5`).  A one-byte value in a register is named by its 64-bit
 * register, `1@%rdi`, `-1@%r8`: gdb knows no %r8b or %r9b and refuses a
 * whole note naming one, and the size prefix already says to read one
 * byte.  Arguments are integers, enums, _Bool/bool or pointers (of 1, 2,
 * 4 or 8 bytes), or floating-point values.
 *
 * A float or a double travels as its IEEE 754 bits: an unsigned integer
 * of its size, `4@%edx`, `8@%rax`, `8@8(%rsp)`, `8@$4615063718147915776`
 * for the constant 3.5 (a long double, or any other size, is converted to
 * double first).  Left alone, the compiler would keep such a value in an
 * SSE register or in its constant pool (`4@.LC2(%rip)`, a label the
 * assembler does not even keep), and neither reaches a tracer; the bits
 * in a general register, on the stack or as a constant do.  systemtap's
 * header marks a floating-point argument `8f@`, and that `f` is
 * understood by neither bpftrace 0.17 (which then reads no argument of
 * the probe) nor gdb 13 (which then evaluates none).  Here bpftrace shows
 * the bits (`printf("%lx", arg0)` prints 400c000000000000 for 3.5) and
 * so does gdb, where `print/f $_probe_arg0` shows the value: 3.5.
 *
 * Semaphores.  A probe may have a semaphore, an unsigned short the kernel
 * increments while the probe is traced, so that costly arguments are
 * computed only then:
 *
 *	USDT_SEMAPHORE_DEFINE(myapp, query__start);	(once, at file scope)
 *	USDT_SEMAPHORE_DECLARE(myapp, query__start);	(where it is tested)
 *
 *	if (USDT_ENABLED(myapp, query__start))
 *		USDT_PROBE(myapp, query__start, describe(q), q->len);
 *
 * USDT_PROBE() is DTRACE_PROBE() whose note names the semaphore
 * __usdt_sema_<provider>___<name>, the symbol `dtrace -h` headers use,
 * so `dtrace -G` defines it too.  Semaphores are hidden: a program and
 * each of its shared libraries have their own.
 *
 * Semaphores of code written for systemtap.  Headers that systemtap's
 * dtrace -h writes define _SDT_HAS_SEMAPHORES and declare an `unsigned
 * short <provider>_<name>_semaphore` in section .probes, which the object
 * its dtrace -G compiles defines (or the program does, itself).  Where
 * _SDT_HAS_SEMAPHORES is defined, every DTRACE_PROBE and STAP_PROBE names
 * that semaphore in its note, and refers to it in an empty asm statement
 * too, as systemtap's header does, so that the compiler sees the
 * reference: under -flto, a semaphore that only a note names is dropped
 * (GCC's link then fails on it, clang's note names none).  (That costs
 * nothing for a hidden semaphore, and one load from the GOT in
 * position-independent code for a default-visibility one.)  STAP_SDT_V1
 * or STAP_SDT_V2, defined where such a semaphore is defined, make it
 * default-visible, so that shared libraries (modules) share the main
 * program's: systemtap's dtrace -G does that, and this header makes
 * USDT_SEMAPHORE_DEFINE and USDT_SEMAPHORE_DECLARE default-visible under
 * them too.  The notes stay version 3 (note type 3, with .stapsdt.base)
 * whatever is defined, as with systemtap's header today.  In a module whose semaphore lives in the program, the symbol is
 * undefined when the module is linked, so the module's notes name no
 * semaphore (0), with either header: tracing the module's probe does not
 * count in the semaphore, while the module's _ENABLED() reads the
 * program's.
 *
 * Assembler (.S files, which #include <sys/sdt.h> too): in a function
 * (with .type and .size, so tools can name it), write the argument
 * string yourself:
 *
 *	USDT_ASM_PROBE(myapp, fast__path, -4@%edi 8@%rsi)
 *	USDT_ASM_PROBE_SEMA(myapp, slow__path, 8@%rax)	(with its semaphore)
 *	USDT_SEMAPHORE_DEFINE(myapp, slow__path)	(outside any function)
 *	STAP_PROBE2(myapp, fast__path, -4@%edi, 8@%rsi)	(systemtap's way,
 *					 one operand per macro argument)
 *
 * Inside an asm statement of C or C++ (systemtap's interface),
 * STAP_PROBE_ASM(provider, name, operands) is a string to put in the
 * statement's template where the probe goes, with the argument string as
 * written: it may name the statement's operands, and a literal `%` is
 * `%%` in an extended asm:
 *
 *	__asm__ __volatile__(STAP_PROBE_ASM(myapp, moved, -4@%1)
 *			     "movl %1, %0" : "=r" (out) : "r" (in));
 *
 * or STAP_PROBE_ASM(provider, name, STAP_PROBE_ASM_TEMPLATE(n)), and the
 * compiler places n arguments given among the statement's inputs as
 * STAP_PROBE_ASM_OPERANDS(n, arg1, ..., argn), as for STAP_PROBEn.  (With
 * clang -std=c89 -pedantic, begin the statement's string with the probe:
 * the string is longer than the 509 characters C90 promises, and clang
 * says so unless its first token is this header's.)
 *
 * Works with gcc and clang, C89 to C2x and C++98 to C++23, at any
 * optimisation level and with -flto (the note is emitted with the code
 * that survives).  Every probe an optimizer duplicates (unrolling,
 * inlining) gets a note of its own.  Define USDT_DISABLE_PROBES to
 * compile every probe out (arguments are then not evaluated and
 * USDT_ENABLED() is 0).  On other machines than x86-64 and aarch64
 * (LP64) the probes compile out the same way.  Operands are chosen with
 * the constraint "nor" (any register, memory, or constant); define
 * USDT_SDT_ARG_CONSTRAINT (a string, "g") or systemtap's
 * STAP_SDT_ARG_CONSTRAINT (a bare word, g) before the include to change
 * it.  AT&T syntax only: not with -masm=intel.
 *
 * On aarch64 the site is one `nop` (d503201f), and every argument is put
 * in a general register, named by its 64-bit name whatever its size:
 * `-4@x1`, `8@x0`, `1@x2` (the constraint is "r", whatever the macros
 * above say).  Memory operands would be exact only sometimes: for a
 * global variable gcc writes `[x0, #:lo12:.LANCHOR0]`, an operand the
 * assembler never resolves and no tracer can read (systemtap's header
 * writes exactly that), and a constant costs one `mov` at most.
 * For lld --gc-sections, .stapsdt.base is marked to be kept where the
 * assembler can say so (see USDT_SDT_RETAIN).
 *
 * Everything this header defines beyond the macros documented here is
 * named _USDT_SDT_* or __usdt_sdt_*.  The part between the markers below
 * is also copied, as is, into headers that `dtrace -h -x probestyle=inline`
 * writes, which therefore need no include path; its guard keeps the two
 * copies from clashing.
 */
#ifndef _SYS_SDT_H
#define _SYS_SDT_H 1
#define _USDT_SYS_SDT_H 1

/*
 * The version of the notes, as systemtap's header names it: code tests it
 * before it uses probes (libgcc's unwinder fires libgcc:::unwind only if
 * `defined (STAP_PROBE2) && _SDT_NOTE_TYPE >= 3`).  Ours are version 3
 * (usdt/stapsdt_note.h).
 */
#ifndef _SDT_NOTE_TYPE
#define _SDT_NOTE_TYPE 3
#endif
#ifndef _SDT_NOTE_NAME
#define _SDT_NOTE_NAME "stapsdt"
#endif

#if defined(__GNUC__) && !defined(__ASSEMBLER__)
/* variadic macros and _Generic under -std=c89 -pedantic */
#pragma GCC system_header
#endif

/* @@usdt-sdt-impl-begin@@ */
#ifndef _USDT_SDT_IMPL_H
#define _USDT_SDT_IMPL_H 1

#if (defined(__x86_64__) || defined(__aarch64__)) && defined(__LP64__) && \
	!defined(USDT_DISABLE_PROBES)
#define _USDT_SDT_ON 1
#else
#define _USDT_SDT_ON 0
#endif

/* The probe site: x86-64's 1-byte NOP and 10-byte NOP; aarch64's nop. */
#ifdef __aarch64__
#define _USDT_SDT_NOPS nop
#else
#define _USDT_SDT_NOPS .byte 0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0
#endif

#define _USDT_SDT_STR(...) #__VA_ARGS__
#define _USDT_SDT_XSTR(...) _USDT_SDT_STR(__VA_ARGS__)
#define _USDT_SDT_CAT(a, b) a##b
#define _USDT_SDT_XCAT(a, b) _USDT_SDT_CAT(a, b)

/*
 * The site, the note up to the probe name, and the rest of the note after
 * the argument string, as assembler statements separated by `;` so that
 * the same text serves .S files directly and C as one string.  Numeric
 * labels 990-994 are local to each expansion.  The base symbol is defined
 * once per assembly file (.ifndef), in a COMDAT group so that one copy
 * survives the link.
 */
#define _USDT_SDT_HEAD(provider, name, sema)				\
990:	_USDT_SDT_NOPS;							\
	.pushsection .note.stapsdt, "?", "note";			\
	.balign 4;							\
	.4byte 992f - 991f, 994f - 993f, 3;				\
991:	.asciz "stapsdt";						\
992:	.balign 4;							\
993:	.8byte 990b, _.stapsdt.base, sema;				\
	.asciz #provider;						\
	.asciz #name;

#define _USDT_SDT_TAIL							\
	.byte 0;							\
994:	.balign 4;							\
	.popsection;							\
	.ifndef _.stapsdt.base;						\
	.pushsection .stapsdt.base, _USDT_SDT_BASE_FLAGS, "progbits",	\
		.stapsdt.base, comdat;					\
	.weak _.stapsdt.base;						\
	.hidden _.stapsdt.base;						\
_.stapsdt.base:								\
	.space 1;							\
	.size _.stapsdt.base, 1;					\
	.popsection;							\
	.endif

/*
 * "R" (SHF_GNU_RETAIN) keeps .stapsdt.base through lld --gc-sections,
 * which drops it otherwise (nothing loaded refers to it), and without it
 * gdb ignores every probe of the file.  Assemblers know the flag since
 * binutils 2.36 and LLVM 13; the compiler's version stands in for its
 * assembler's.  Define USDT_SDT_RETAIN as 0 or 1 to decide yourself.
 */
#ifndef USDT_SDT_RETAIN
#if defined(__clang__) && __clang_major__ >= 13
#define USDT_SDT_RETAIN 1
#elif !defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 12
#define USDT_SDT_RETAIN 1
#else
#define USDT_SDT_RETAIN 0
#endif
#endif
#if USDT_SDT_RETAIN
#define _USDT_SDT_BASE_FLAGS "aGR"
#else
#define _USDT_SDT_BASE_FLAGS "aG"
#endif

/*
 * The semaphore of a probe: the name `dtrace -h` headers use; and that of
 * DTRACE_PROBE and STAP_PROBE: systemtap's name where _SDT_HAS_SEMAPHORES
 * is defined (to anything, as systemtap tests it), else none.
 */
#define _USDT_SDT_SEMA(provider, name) __usdt_sema_##provider##___##name
#ifdef _SDT_HAS_SEMAPHORES
#define _USDT_SDT_DEFSEMA(provider, name) provider##_##name##_semaphore
#else
#define _USDT_SDT_DEFSEMA(provider, name) 0
#endif

/*
 * Semaphores are hidden, so that a program and each of its libraries
 * count their own, unless STAP_SDT_V1 or STAP_SDT_V2 asks, as it does
 * for systemtap, that modules share the main program's.
 */
#if defined(STAP_SDT_V1) || defined(STAP_SDT_V2)
#define _USDT_SDT_SEMA_HIDDEN 0
#else
#define _USDT_SDT_SEMA_HIDDEN 1
#endif

/* The number of arguments after provider and name: 0 to 12 (or 13). */
#define _USDT_SDT_NTH(_p, _n, _1, _2, _3, _4, _5, _6, _7, _8, _9, _10,	\
		      _11, _12, _13, k, ...) k
#define _USDT_SDT_NARGS(...)						\
	_USDT_SDT_NTH(__VA_ARGS__, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3,	\
		      2, 1, 0, _)

#ifdef __ASSEMBLER__

#if _USDT_SDT_ON
#define _USDT_SDT_ASM(provider, name, sema, args)			\
	_USDT_SDT_HEAD(provider, name, sema) .ascii args; _USDT_SDT_TAIL
#define _USDT_SDT_ASM_SEMA(sym)						\
	.pushsection .probes, "aw", "progbits";				\
	.balign 2;							\
	.globl sym;							\
	_USDT_SDT_ASM_HIDE(sym);					\
	.type sym, @object;						\
	.size sym, 2;							\
sym:	.zero 2;							\
	.popsection
#else
#define _USDT_SDT_ASM(provider, name, sema, args)
#define _USDT_SDT_ASM_SEMA(sym)
#endif
#if _USDT_SDT_SEMA_HIDDEN
#define _USDT_SDT_ASM_HIDE(sym) .hidden sym
#else
#define _USDT_SDT_ASM_HIDE(sym)
#endif

#else /* C and C++ */

/*
 * systemtap's spelling of the constraint is a bare word: nor, g.  On
 * aarch64 every argument is put in a register ("r", see Arguments).
 */
#if defined(__aarch64__)
#undef USDT_SDT_ARG_CONSTRAINT
#define USDT_SDT_ARG_CONSTRAINT "r"
#elif !defined(USDT_SDT_ARG_CONSTRAINT)
#ifdef STAP_SDT_ARG_CONSTRAINT
#define USDT_SDT_ARG_CONSTRAINT _USDT_SDT_XSTR(STAP_SDT_ARG_CONSTRAINT)
#else
#define USDT_SDT_ARG_CONSTRAINT "nor"
#endif
#endif

/*
 * The value of an argument as the note describes it, and its size and
 * signedness, as a compile-time constant -SIZE or SIZE.  The value is
 * what the argument decays to: arrays and functions become pointers,
 * qualifiers go; and a floating-point value becomes its bits, an unsigned
 * integer of its size (a long double, or a floating-point type of other
 * than 4 or 8 bytes, is made a double first).  Any other argument is
 * given to the asm as it is, so that a constant stays an immediate
 * operand at -O0 too; only floating-point ones are converted, by code
 * that the optimizer reduces to a move (or a constant).
 *
 * C uses the comma operator for the decay, _Generic for the sign (an
 * enum matches the integer type it is compatible with) and
 * __builtin_choose_expr on the type class (GCC's real_type_class, 8,
 * which clang shares) for the bits; the branch not chosen is compiled
 * but never evaluated.  C++ passes the argument by value to a template
 * and looks the type up in a trait; the bits come from an overloaded
 * comma operator that only floating-point types select, every other
 * type getting the built-in comma and so its own value.
 */
#ifdef __cplusplus
extern "C++" {
template <typename __T> __T __usdt_sdt_decay(__T);
template <typename __T, bool = __is_enum(__T)> struct __usdt_sdt_sign {
	enum { value = 0 };
};
template <typename __T> struct __usdt_sdt_sign<__T, true>
	: __usdt_sdt_sign<__underlying_type(__T)> {};
#define _USDT_SDT_SIGNED_TYPE(t, v)					\
	template <> struct __usdt_sdt_sign<t, false> { enum { value = v }; }
_USDT_SDT_SIGNED_TYPE(signed char, 1);
_USDT_SDT_SIGNED_TYPE(short, 1);
_USDT_SDT_SIGNED_TYPE(int, 1);
_USDT_SDT_SIGNED_TYPE(long, 1);
_USDT_SDT_SIGNED_TYPE(long long, 1);
_USDT_SDT_SIGNED_TYPE(char, (char)-1 < 0);
_USDT_SDT_SIGNED_TYPE(wchar_t, (wchar_t)-1 < 0);
#undef _USDT_SDT_SIGNED_TYPE

/* the bits of a float or double; of a long double made a double */
struct __usdt_sdt_fpbits {};
template <typename __T> struct __usdt_sdt_fp {};
template <> struct __usdt_sdt_fp<float> {
	typedef unsigned int __bits;
	typedef float __as;
};
template <> struct __usdt_sdt_fp<double> {
	typedef unsigned long long __bits;
	typedef double __as;
};
template <> struct __usdt_sdt_fp<long double> {
	typedef unsigned long long __bits;
	typedef double __as;
};
template <typename __T>
inline typename __usdt_sdt_fp<__T>::__bits
operator,(__usdt_sdt_fpbits, __T __v)
{
	typename __usdt_sdt_fp<__T>::__as __f =
		static_cast<typename __usdt_sdt_fp<__T>::__as>(__v);
	typename __usdt_sdt_fp<__T>::__bits __b;

	__builtin_memcpy(&__b, &__f, sizeof(__b));
	return __b;
}
}
#define _USDT_SDT_VALUE(x) (__usdt_sdt_fpbits(), (x))
#define _USDT_SDT_SIZE(x)						\
	((int)sizeof(__usdt_sdt_decay(_USDT_SDT_VALUE(x))))
#define _USDT_SDT_SIGNED(x)						\
	(__usdt_sdt_sign<__typeof__(__usdt_sdt_decay(x))>::value)
#else
#define _USDT_SDT_RVALUE(x) ((void)0, (x))
#define _USDT_SDT_ISFP(x)						\
	(__builtin_classify_type(_USDT_SDT_RVALUE(x)) == 8)
/* (sizeof of the type: clang warns of sizeof on a decayed array) */
#define _USDT_SDT_RVSIZE(x) sizeof(__typeof__(_USDT_SDT_RVALUE(x)))
/* float and double as they are, other floating-point types as double */
#define _USDT_SDT_FPTYPE(x)						\
	__typeof__(__builtin_choose_expr(_USDT_SDT_RVSIZE(x) == 4 ||	\
					 _USDT_SDT_RVSIZE(x) == 8,	\
					 _USDT_SDT_RVALUE(x), 0.0))
#define _USDT_SDT_FPBITS(x)						\
	(__extension__({						\
		union {							\
			_USDT_SDT_FPTYPE(x) __usdt_f;			\
			unsigned int __usdt_b4;				\
			unsigned long long __usdt_b8;			\
		} __usdt_fp;						\
		__usdt_fp.__usdt_f = (x);				\
		__builtin_choose_expr(sizeof(__usdt_fp.__usdt_f) == 4,	\
				      __usdt_fp.__usdt_b4,		\
				      __usdt_fp.__usdt_b8);		\
	}))
#define _USDT_SDT_VALUE(x)						\
	__builtin_choose_expr(_USDT_SDT_ISFP(x), _USDT_SDT_FPBITS(x), (x))
#define _USDT_SDT_SIZE(x)						\
	((int)(!_USDT_SDT_ISFP(x) ? _USDT_SDT_RVSIZE(x)			\
	       : _USDT_SDT_RVSIZE(x) == 4 ? 4 : 8))
#define _USDT_SDT_SIGNED(x)						\
	(__extension__ _Generic(_USDT_SDT_RVALUE(x),			\
		signed char: 1, short: 1, int: 1, long: 1, long long: 1, \
		char: ((char)-1 < 0), default: 0))
#endif

/*
 * Argument i: the operand pair [_usdt_zI] (the signed size) and
 * [_usdt_vI] (the value), and the text that prints them.  A one-byte
 * register is printed by its 64-bit name (%q): the assembler picks the
 * line by the size, which only it knows as a number.  On aarch64 every
 * register is printed by its 64-bit name (%x: `x1`, never clang's `w1`),
 * as gcc prints them for systemtap's header and as libbpf and bpftrace
 * read them.
 */
#define _USDT_SDT_OPERANDS(i, x)					\
	[_usdt_z##i] "n" (_USDT_SDT_SIZE(x) * (_USDT_SDT_SIGNED(x) ? -1 : 1)), \
	[_usdt_v##i] USDT_SDT_ARG_CONSTRAINT (_USDT_SDT_VALUE(x))
#ifdef __aarch64__
#define _USDT_SDT_SPEC(i)						\
	"\n\t.ascii \"%c[_usdt_z" #i "]@%x[_usdt_v" #i "]\""
#else
#define _USDT_SDT_SPEC(i)						\
	"\n\t.if %c[_usdt_z" #i "] == 1 || %c[_usdt_z" #i "] == -1"	\
	"\n\t.ascii \"%c[_usdt_z" #i "]@%q[_usdt_v" #i "]\""		\
	"\n\t.else"							\
	"\n\t.ascii \"%c[_usdt_z" #i "]@%[_usdt_v" #i "]\""		\
	"\n\t.endif"
#endif
#define _USDT_SDT_SPACE "\n\t.ascii \" \""

#define _USDT_SDT_A1 _USDT_SDT_SPEC(1)
#define _USDT_SDT_A2 _USDT_SDT_A1 _USDT_SDT_SPACE _USDT_SDT_SPEC(2)
#define _USDT_SDT_A3 _USDT_SDT_A2 _USDT_SDT_SPACE _USDT_SDT_SPEC(3)
#define _USDT_SDT_A4 _USDT_SDT_A3 _USDT_SDT_SPACE _USDT_SDT_SPEC(4)
#define _USDT_SDT_A5 _USDT_SDT_A4 _USDT_SDT_SPACE _USDT_SDT_SPEC(5)
#define _USDT_SDT_A6 _USDT_SDT_A5 _USDT_SDT_SPACE _USDT_SDT_SPEC(6)
#define _USDT_SDT_A7 _USDT_SDT_A6 _USDT_SDT_SPACE _USDT_SDT_SPEC(7)
#define _USDT_SDT_A8 _USDT_SDT_A7 _USDT_SDT_SPACE _USDT_SDT_SPEC(8)
#define _USDT_SDT_A9 _USDT_SDT_A8 _USDT_SDT_SPACE _USDT_SDT_SPEC(9)
#define _USDT_SDT_A10 _USDT_SDT_A9 _USDT_SDT_SPACE _USDT_SDT_SPEC(10)
#define _USDT_SDT_A11 _USDT_SDT_A10 _USDT_SDT_SPACE _USDT_SDT_SPEC(11)
#define _USDT_SDT_A12 _USDT_SDT_A11 _USDT_SDT_SPACE _USDT_SDT_SPEC(12)

/* One probe: the asm statement, as an expression statement. */
#define _USDT_SDT_ASM_STMT(provider, name, sema, args, ...)		\
	__asm__ __volatile__(						\
		_USDT_SDT_XSTR(_USDT_SDT_HEAD(provider, name, sema))	\
		args "\n"						\
		_USDT_SDT_XSTR(_USDT_SDT_TAIL)				\
		: : __VA_ARGS__)

#define _USDT_SDT_O1(a) _USDT_SDT_OPERANDS(1, a)
#define _USDT_SDT_O2(a, b) _USDT_SDT_O1(a), _USDT_SDT_OPERANDS(2, b)
#define _USDT_SDT_O3(a, b, c) _USDT_SDT_O2(a, b), _USDT_SDT_OPERANDS(3, c)
#define _USDT_SDT_O4(a, b, c, d)					\
	_USDT_SDT_O3(a, b, c), _USDT_SDT_OPERANDS(4, d)
#define _USDT_SDT_O5(a, b, c, d, e)					\
	_USDT_SDT_O4(a, b, c, d), _USDT_SDT_OPERANDS(5, e)
#define _USDT_SDT_O6(a, b, c, d, e, f)					\
	_USDT_SDT_O5(a, b, c, d, e), _USDT_SDT_OPERANDS(6, f)
#define _USDT_SDT_O7(a, b, c, d, e, f, g)				\
	_USDT_SDT_O6(a, b, c, d, e, f), _USDT_SDT_OPERANDS(7, g)
#define _USDT_SDT_O8(a, b, c, d, e, f, g, h)				\
	_USDT_SDT_O7(a, b, c, d, e, f, g), _USDT_SDT_OPERANDS(8, h)
#define _USDT_SDT_O9(a, b, c, d, e, f, g, h, i)				\
	_USDT_SDT_O8(a, b, c, d, e, f, g, h), _USDT_SDT_OPERANDS(9, i)
#define _USDT_SDT_O10(a, b, c, d, e, f, g, h, i, j)			\
	_USDT_SDT_O9(a, b, c, d, e, f, g, h, i), _USDT_SDT_OPERANDS(10, j)
#define _USDT_SDT_O11(a, b, c, d, e, f, g, h, i, j, k)			\
	_USDT_SDT_O10(a, b, c, d, e, f, g, h, i, j),			\
	_USDT_SDT_OPERANDS(11, k)
#define _USDT_SDT_O12(a, b, c, d, e, f, g, h, i, j, k, l)		\
	_USDT_SDT_O11(a, b, c, d, e, f, g, h, i, j, k),			\
	_USDT_SDT_OPERANDS(12, l)

/*
 * _USDT_SDT_Pn(provider, name, sema, args...): a probe of n arguments
 * whose note names semaphore `sema` (a symbol, or 0 for none); a void
 * expression, so that it fits wherever the call form of a DTrace probe
 * did.  The zero-argument asm passes one unused operand, so that every
 * form has the same `%` conventions.
 */
#if _USDT_SDT_ON
#define _USDT_SDT_P0(p, n, s)						\
	(__extension__({ _USDT_SDT_ASM_STMT(p, n, s, "", "i" (0)); (void)0; }))
#define _USDT_SDT_PN(p, n, s, k, ...)					\
	(__extension__({						\
		_USDT_SDT_ASM_STMT(p, n, s, _USDT_SDT_A##k,		\
				   _USDT_SDT_O##k(__VA_ARGS__));	\
		(void)0;						\
	}))
#else
#define _USDT_SDT_P0(p, n, s) ((void)0)
#define _USDT_SDT_PN(p, n, s, k, ...) ((void)0)
#endif
#define _USDT_SDT_P1(p, n, s, ...) _USDT_SDT_PN(p, n, s, 1, __VA_ARGS__)
#define _USDT_SDT_P2(p, n, s, ...) _USDT_SDT_PN(p, n, s, 2, __VA_ARGS__)
#define _USDT_SDT_P3(p, n, s, ...) _USDT_SDT_PN(p, n, s, 3, __VA_ARGS__)
#define _USDT_SDT_P4(p, n, s, ...) _USDT_SDT_PN(p, n, s, 4, __VA_ARGS__)
#define _USDT_SDT_P5(p, n, s, ...) _USDT_SDT_PN(p, n, s, 5, __VA_ARGS__)
#define _USDT_SDT_P6(p, n, s, ...) _USDT_SDT_PN(p, n, s, 6, __VA_ARGS__)
#define _USDT_SDT_P7(p, n, s, ...) _USDT_SDT_PN(p, n, s, 7, __VA_ARGS__)
#define _USDT_SDT_P8(p, n, s, ...) _USDT_SDT_PN(p, n, s, 8, __VA_ARGS__)
#define _USDT_SDT_P9(p, n, s, ...) _USDT_SDT_PN(p, n, s, 9, __VA_ARGS__)
#define _USDT_SDT_P10(p, n, s, ...) _USDT_SDT_PN(p, n, s, 10, __VA_ARGS__)
#define _USDT_SDT_P11(p, n, s, ...) _USDT_SDT_PN(p, n, s, 11, __VA_ARGS__)
#define _USDT_SDT_P12(p, n, s, ...) _USDT_SDT_PN(p, n, s, 12, __VA_ARGS__)

/* a probe whose semaphore is picked by `semafn`, 0 to 12 arguments */
#define _USDT_SDT_PV(semafn, ...)					\
	_USDT_SDT_XCAT(_USDT_SDT_V, _USDT_SDT_NARGS(__VA_ARGS__))(semafn, \
								   __VA_ARGS__)
#define _USDT_SDT_V0(f, p, n) _USDT_SDT_P0(p, n, f(p, n))
#define _USDT_SDT_V1(f, p, n, ...) _USDT_SDT_P1(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V2(f, p, n, ...) _USDT_SDT_P2(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V3(f, p, n, ...) _USDT_SDT_P3(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V4(f, p, n, ...) _USDT_SDT_P4(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V5(f, p, n, ...) _USDT_SDT_P5(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V6(f, p, n, ...) _USDT_SDT_P6(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V7(f, p, n, ...) _USDT_SDT_P7(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V8(f, p, n, ...) _USDT_SDT_P8(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V9(f, p, n, ...) _USDT_SDT_P9(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V10(f, p, n, ...)					\
	_USDT_SDT_P10(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V11(f, p, n, ...)					\
	_USDT_SDT_P11(p, n, f(p, n), __VA_ARGS__)
#define _USDT_SDT_V12(f, p, n, ...)					\
	_USDT_SDT_P12(p, n, f(p, n), __VA_ARGS__)
/* what the compiler says about a thirteenth argument */
#define _USDT_SDT_V13(...) __usdt_sdt_error_more_than_12_probe_arguments

#endif /* C and C++ */
#endif /* _USDT_SDT_IMPL_H */
/* @@usdt-sdt-impl-end@@ */

/* ------------------------------------------------------------------ */
/* The public macros */

#define USDT_SEMAPHORE(provider, name) _USDT_SDT_SEMA(provider, name)

#ifdef __ASSEMBLER__

#define USDT_ASM_PROBE(provider, name, ...)				\
	_USDT_SDT_ASM(provider, name, _USDT_SDT_DEFSEMA(provider, name), \
		      #__VA_ARGS__)
#define USDT_ASM_PROBE_SEMA(provider, name, ...)			\
	_USDT_SDT_ASM(provider, name, USDT_SEMAPHORE(provider, name),	\
		      #__VA_ARGS__)
#define STAP_PROBE_ASM(provider, name, ...)				\
	USDT_ASM_PROBE(provider, name, __VA_ARGS__)
#define USDT_SEMAPHORE_DEFINE(provider, name)				\
	_USDT_SDT_ASM_SEMA(USDT_SEMAPHORE(provider, name))

/*
 * systemtap's probe macros in assembler: one operand string per macro
 * argument, joined by spaces into the note's argument string.
 */
#define _USDT_SDT_SASM(p, n, ...)					\
	_USDT_SDT_ASM(p, n, _USDT_SDT_DEFSEMA(p, n),			\
		      _USDT_SDT_XSTR(__VA_ARGS__))
#define DTRACE_PROBE0(p, n) _USDT_SDT_ASM(p, n, _USDT_SDT_DEFSEMA(p, n), "")
#define DTRACE_PROBE1(p, n, a1) _USDT_SDT_SASM(p, n, a1)
#define DTRACE_PROBE2(p, n, a1, a2) _USDT_SDT_SASM(p, n, a1 a2)
#define DTRACE_PROBE3(p, n, a1, a2, a3) _USDT_SDT_SASM(p, n, a1 a2 a3)
#define DTRACE_PROBE4(p, n, a1, a2, a3, a4)				\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4)
#define DTRACE_PROBE5(p, n, a1, a2, a3, a4, a5)				\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5)
#define DTRACE_PROBE6(p, n, a1, a2, a3, a4, a5, a6)			\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5 a6)
#define DTRACE_PROBE7(p, n, a1, a2, a3, a4, a5, a6, a7)			\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5 a6 a7)
#define DTRACE_PROBE8(p, n, a1, a2, a3, a4, a5, a6, a7, a8)		\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5 a6 a7 a8)
#define DTRACE_PROBE9(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9)		\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5 a6 a7 a8 a9)
#define DTRACE_PROBE10(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)	\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5 a6 a7 a8 a9 a10)
#define DTRACE_PROBE11(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,	\
		       a11)						\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11)
#define DTRACE_PROBE12(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,	\
		       a11, a12)					\
	_USDT_SDT_SASM(p, n, a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12)

/* counted: 0 to 12 arguments */
#define DTRACE_PROBE(...)						\
	_USDT_SDT_XCAT(DTRACE_PROBE, _USDT_SDT_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define STAP_PROBE(...) DTRACE_PROBE(__VA_ARGS__)
#define STAP_PROBEV(...) DTRACE_PROBE(__VA_ARGS__)

#else /* C and C++ */

/*
 * The semaphore: defined once, declared where _ENABLED() tests it.  It is
 * `used` and, for GCC, `externally_visible`, so that -flto neither drops
 * it nor renames it: the notes name it in assembler text, which the
 * optimizer cannot see.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define _USDT_SDT_KEEP __attribute__((used, externally_visible))
#else
#define _USDT_SDT_KEEP __attribute__((used))
#endif
#if _USDT_SDT_SEMA_HIDDEN
#define _USDT_SDT_SEMA_VIS __attribute__((visibility("hidden")))
#else
#define _USDT_SDT_SEMA_VIS
#endif
#define USDT_SEMAPHORE_DECLARE(provider, name)				\
	extern volatile unsigned short USDT_SEMAPHORE(provider, name)	\
		_USDT_SDT_SEMA_VIS
#define USDT_SEMAPHORE_DEFINE(provider, name)				\
	USDT_SEMAPHORE_DECLARE(provider, name);				\
	volatile unsigned short USDT_SEMAPHORE(provider, name)		\
		__attribute__((section(".probes"), aligned(2)))		\
		_USDT_SDT_KEEP = 0
#if _USDT_SDT_ON
#define USDT_ENABLED(provider, name)					\
	__builtin_expect(USDT_SEMAPHORE(provider, name) != 0, 0)
#else
#define USDT_ENABLED(provider, name) (0)
#endif

/*
 * A semaphore of systemtap's kind, which the program defines itself,
 * has no `used` attribute: the probe refers to it from C as well (an
 * empty asm reading it, as systemtap's header does), or -flto would drop
 * it.
 */
#if _USDT_SDT_ON && defined(_SDT_HAS_SEMAPHORES)
#define _USDT_SDT_USE(p, n)						\
	(__extension__({						\
		__asm__ __volatile__("" : : "m" (_USDT_SDT_DEFSEMA(p, n))); \
		(void)0;						\
	}))
#else
#define _USDT_SDT_USE(p, n) ((void)0)
#endif
#define _USDT_SDT_USE2(p, n, ...) _USDT_SDT_USE(p, n)

#define _USDT_SDT_NOSEMA(provider, name) _USDT_SDT_DEFSEMA(provider, name)
#define _USDT_SDT_WITHSEMA(provider, name) USDT_SEMAPHORE(provider, name)

/* Probes of 0 to 12 arguments; the count is taken from the call. */
#define DTRACE_PROBE(...)						\
	(_USDT_SDT_USE2(__VA_ARGS__, _),				\
	 _USDT_SDT_PV(_USDT_SDT_NOSEMA, __VA_ARGS__))
#define STAP_PROBE(...) DTRACE_PROBE(__VA_ARGS__)
#define STAP_PROBEV(...) DTRACE_PROBE(__VA_ARGS__)
#define USDT_PROBE(...) _USDT_SDT_PV(_USDT_SDT_WITHSEMA, __VA_ARGS__)

/*
 * systemtap's internal _SDT_PROBE(provider, name, n, (args...)), which
 * LTTng-UST 2.13's <lttng/tracepoint.h> calls directly when
 * LTTNG_UST_HAVE_SDT_INTEGRATION is defined (Mir defines it when
 * <sys/sdt.h> is found), so that every tracepoint() is also a probe:
 * the argument count is given, the arguments come in parentheses.
 */
#define _USDT_SDT_UNPAREN(...) __VA_ARGS__
#define _SDT_PROBE(provider, name, n, arglist)				\
	_USDT_SDT_XCAT(_USDT_SDT_L, n)(provider, name,			\
				       _USDT_SDT_UNPAREN arglist)
#define _USDT_SDT_L0(p, n, ...) DTRACE_PROBE0(p, n)
#define _USDT_SDT_L1(p, n, ...) _USDT_SDT_FIXED(1, p, n, __VA_ARGS__)
#define _USDT_SDT_L2(p, n, ...) _USDT_SDT_FIXED(2, p, n, __VA_ARGS__)
#define _USDT_SDT_L3(p, n, ...) _USDT_SDT_FIXED(3, p, n, __VA_ARGS__)
#define _USDT_SDT_L4(p, n, ...) _USDT_SDT_FIXED(4, p, n, __VA_ARGS__)
#define _USDT_SDT_L5(p, n, ...) _USDT_SDT_FIXED(5, p, n, __VA_ARGS__)
#define _USDT_SDT_L6(p, n, ...) _USDT_SDT_FIXED(6, p, n, __VA_ARGS__)
#define _USDT_SDT_L7(p, n, ...) _USDT_SDT_FIXED(7, p, n, __VA_ARGS__)
#define _USDT_SDT_L8(p, n, ...) _USDT_SDT_FIXED(8, p, n, __VA_ARGS__)
#define _USDT_SDT_L9(p, n, ...) _USDT_SDT_FIXED(9, p, n, __VA_ARGS__)
#define _USDT_SDT_L10(p, n, ...) _USDT_SDT_FIXED(10, p, n, __VA_ARGS__)
#define _USDT_SDT_L11(p, n, ...) _USDT_SDT_FIXED(11, p, n, __VA_ARGS__)
#define _USDT_SDT_L12(p, n, ...) _USDT_SDT_FIXED(12, p, n, __VA_ARGS__)

/* The fixed-count spellings of DTrace and systemtap. */
#define _USDT_SDT_FIXED(k, p, n, ...)					\
	(_USDT_SDT_USE(p, n),						\
	 _USDT_SDT_P##k(p, n, _USDT_SDT_DEFSEMA(p, n), __VA_ARGS__))
#define DTRACE_PROBE0(p, n)						\
	(_USDT_SDT_USE(p, n), _USDT_SDT_P0(p, n, _USDT_SDT_DEFSEMA(p, n)))
#define DTRACE_PROBE1(p, n, a1) _USDT_SDT_FIXED(1, p, n, a1)
#define DTRACE_PROBE2(p, n, a1, a2) _USDT_SDT_FIXED(2, p, n, a1, a2)
#define DTRACE_PROBE3(p, n, a1, a2, a3)					\
	_USDT_SDT_FIXED(3, p, n, a1, a2, a3)
#define DTRACE_PROBE4(p, n, a1, a2, a3, a4)				\
	_USDT_SDT_FIXED(4, p, n, a1, a2, a3, a4)
#define DTRACE_PROBE5(p, n, a1, a2, a3, a4, a5)				\
	_USDT_SDT_FIXED(5, p, n, a1, a2, a3, a4, a5)
#define DTRACE_PROBE6(p, n, a1, a2, a3, a4, a5, a6)			\
	_USDT_SDT_FIXED(6, p, n, a1, a2, a3, a4, a5, a6)
#define DTRACE_PROBE7(p, n, a1, a2, a3, a4, a5, a6, a7)			\
	_USDT_SDT_FIXED(7, p, n, a1, a2, a3, a4, a5, a6, a7)
#define DTRACE_PROBE8(p, n, a1, a2, a3, a4, a5, a6, a7, a8)		\
	_USDT_SDT_FIXED(8, p, n, a1, a2, a3, a4, a5, a6, a7, a8)
#define DTRACE_PROBE9(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9)		\
	_USDT_SDT_FIXED(9, p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9)
#define DTRACE_PROBE10(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)	\
	_USDT_SDT_FIXED(10, p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)
#define DTRACE_PROBE11(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,	\
		       a11)						\
	_USDT_SDT_FIXED(11, p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9,	\
			a10, a11)
#define DTRACE_PROBE12(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,	\
		       a11, a12)					\
	_USDT_SDT_FIXED(12, p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9,	\
			a10, a11, a12)

/*
 * A probe inside an asm statement: STAP_PROBE_ASM(provider, name) with no
 * arguments, (provider, name, operands) with the argument string as
 * written, or (provider, name, STAP_PROBE_ASM_TEMPLATE(n)), which
 * expands to two macro arguments -- the text that prints n operands of
 * STAP_PROBE_ASM_OPERANDS and a marker -- so that the count tells the
 * forms apart, as in systemtap's header.
 *
 * The statement's string, the user's text and ours, is longer than the
 * 509 characters C90 promises, as every probe's text is.  GCC, and clang
 * for the probes this header writes whole, let it pass because it comes
 * from a system header; clang -pedantic (-Woverlength-strings) does not
 * when the user's text is part of it, so it is told not to for the
 * expansion -- which helps where the string starts with the probe: clang
 * looks at the diagnostic settings where the string starts.
 */
#ifdef __clang__
#define _USDT_SDT_LONG_STRING_ON					\
	_Pragma("clang diagnostic push")				\
	_Pragma("clang diagnostic ignored \"-Woverlength-strings\"")
#define _USDT_SDT_LONG_STRING_OFF _Pragma("clang diagnostic pop")
#else
#define _USDT_SDT_LONG_STRING_ON
#define _USDT_SDT_LONG_STRING_OFF
#endif
#if _USDT_SDT_ON
#define _USDT_SDT_INASM(p, n, args)					\
	"\n" _USDT_SDT_XSTR(_USDT_SDT_HEAD(p, n, _USDT_SDT_DEFSEMA(p, n))) \
	args "\n" _USDT_SDT_XSTR(_USDT_SDT_TAIL) "\n"
#else
#define _USDT_SDT_INASM(p, n, args) ""
#endif
#define _USDT_SDT_INASM0(p, n) _USDT_SDT_INASM(p, n, "")
#define _USDT_SDT_INASM1(p, n, ops)					\
	_USDT_SDT_INASM(p, n, "\n\t.ascii \"" #ops "\"")
#define _USDT_SDT_INASM2(p, n, tmpl, marker) _USDT_SDT_INASM(p, n, tmpl)
#define STAP_PROBE_ASM(...)						\
	_USDT_SDT_LONG_STRING_ON					\
	_USDT_SDT_XCAT(_USDT_SDT_INASM,					\
		       _USDT_SDT_NARGS(__VA_ARGS__))(__VA_ARGS__)		\
	_USDT_SDT_LONG_STRING_OFF
#define STAP_PROBE_ASM_TEMPLATE(n)					\
	_USDT_SDT_A##n, "use STAP_PROBE_ASM_TEMPLATE in STAP_PROBE_ASM"
#define STAP_PROBE_ASM_OPERANDS(n, ...) _USDT_SDT_O##n(__VA_ARGS__)

#endif /* C and C++ */

#define STAP_PROBE0 DTRACE_PROBE0
#define STAP_PROBE1 DTRACE_PROBE1
#define STAP_PROBE2 DTRACE_PROBE2
#define STAP_PROBE3 DTRACE_PROBE3
#define STAP_PROBE4 DTRACE_PROBE4
#define STAP_PROBE5 DTRACE_PROBE5
#define STAP_PROBE6 DTRACE_PROBE6
#define STAP_PROBE7 DTRACE_PROBE7
#define STAP_PROBE8 DTRACE_PROBE8
#define STAP_PROBE9 DTRACE_PROBE9
#define STAP_PROBE10 DTRACE_PROBE10
#define STAP_PROBE11 DTRACE_PROBE11
#define STAP_PROBE12 DTRACE_PROBE12

#endif /* _SYS_SDT_H */
