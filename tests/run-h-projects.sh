#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-h-projects.sh: `dtrace -h` driven exactly the way real projects'
# builds and configure scripts drive it (CPython, PostgreSQL, Ruby, Perl,
# PHP, QEMU, glib, libvirt, sssd; see research/dtrace-compat.md), on provider files in
# tests/data/ shaped like theirs.  For each project this proves that the
# command line is accepted, that the project's own post-processing (its
# sed over the header) finds what it expects, that the resulting header
# defines exactly the (renamed) macros the project's code uses, and that
# a small C file using them the project's way compiles with
# -Wall -Wextra -Werror.

. "$top_srcdir/tests/lib.sh"

data=$top_srcdir/tests/data
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC)"
command -v cpp >/dev/null 2>&1 || skip "no cpp on PATH (needed for -C)"

# cc_ok WHAT FILE [FLAGS...]: FILE compiles without a word of output
cc_ok() {
	cc_what=$1 cc_file=$2
	shift 2
	if $CC -std=gnu11 -Wall -Wextra -Werror "$@" -c "$cc_file" \
		-o cc.o >cc.log 2>&1 && [ ! -s cc.log ]; then
		pass
	else
		fail "$cc_what: $cc_file does not compile cleanly"
		sed 's/^/    | /' cc.log >&2
	fi
}

# expect_macros WHAT HEADER: the probe macros HEADER defines are exactly
# NAME(...) and NAME_ENABLED() for each NAME on stdin, in both the
# enabled and the compiled-out halves
expect_macros() {
	sort >names.txt
	while read -r n; do
		echo "$n"
		echo "${n}_ENABLED"
	done <names.txt | sort >want.txt
	# each macro is defined twice: probes on, probes compiled out
	sed -n 's/^#define[	 ]*\([A-Za-z0-9_]*\)(.*/\1/p' "$2" | sort >got2.txt
	sort -u got2.txt >got.txt
	expect_file_eq "$1: probe macros" want.txt got.txt
	expect_eq "$1: every macro in both halves" "$(($(wc -l <want.txt) * 2))" \
		"$(wc -l <got2.txt | tr -d ' ')"
}

# no_line WHAT PATTERN FILE: no line of FILE matches PATTERN
no_line() {
	if grep -n -e "$2" "$3" >match.txt; then
		fail "$1: '$2' found in $3:"
		sed 's/^/    | /' match.txt >&2
	else
		pass
	fi
}

# ---------------------------------------------------------------------
# CPython

mkdir python && cd python || exit 99
mkdir Include || exit 99
cp "$data/cpython-pydtrace.d" Include/pydtrace.d

# configure: does -h take a script that holds only a clause?  (The NetBSD
# branch of the "whether DTrace probes require linking" check.)  Only the
# exit status counts.
echo 'BEGIN{}' >conftest.d
"$DTRACE" -x nolibs -x nolibs -h -s conftest.d -o conftest.o >/dev/null 2>&1
expect_eq "cpython: configure probe -x nolibs -h on BEGIN{}" 0 "$?"
rm -f conftest.d conftest.o

# Makefile.pre.in: Include/pydtrace_probes.h
srcdir=.
CC="$CC" CFLAGS="-O2 -g" "$DTRACE" -o Include/pydtrace_probes.h -h \
	-s $srcdir/Include/pydtrace.d >../out.txt 2>../err.txt
expect_eq "cpython: dtrace -o -h -s" 0 "$?"
expect_eq "cpython: dtrace -o -h -s: stderr" "" "$(cat ../err.txt)"
# with the NetBSD DFLAGS the header is the same
mkdir netbsd || exit 99
CC="$CC" CFLAGS="-O2 -g" "$DTRACE" -x nolibs -o netbsd/pydtrace_probes.h -h \
	-s $srcdir/Include/pydtrace.d >../out.txt 2>../err.txt
expect_eq "cpython: DFLAGS=-x nolibs: exit status" 0 "$?"
expect_file_eq "cpython: DFLAGS=-x nolibs: same header" \
	Include/pydtrace_probes.h netbsd/pydtrace_probes.h
# the rule's sed replaces only the first PYTHON_ on a line
sed 's/PYTHON_/PyDTrace_/' Include/pydtrace_probes.h >Include/pydtrace_probes.h.tmp
mv Include/pydtrace_probes.h.tmp Include/pydtrace_probes.h
no_line "cpython: no PYTHON_ left after a non-global sed" 'PYTHON_' \
	Include/pydtrace_probes.h
expect_macros "cpython" Include/pydtrace_probes.h <<'EOF'
PyDTrace_FUNCTION_ENTRY
PyDTrace_FUNCTION_RETURN
PyDTrace_INSTANCE_NEW_START
PyDTrace_INSTANCE_NEW_DONE
PyDTrace_LINE
PyDTrace_GC_START
PyDTrace_GC_DONE
PyDTrace_IMPORT_FIND_LOAD_START
PyDTrace_IMPORT_FIND_LOAD_DONE
PyDTrace_AUDIT
EOF
cat >ceval.c <<'EOF'
#include "Include/pydtrace_probes.h"

void trace_call(const char *filename, const char *funcname, int lineno);
void trace_call(const char *filename, const char *funcname, int lineno)
{
	if (PyDTrace_FUNCTION_ENTRY_ENABLED())
		PyDTrace_FUNCTION_ENTRY(filename, funcname, lineno);
	if (PyDTrace_LINE_ENABLED())
		PyDTrace_LINE(filename, funcname, lineno);
	if (PyDTrace_FUNCTION_RETURN_ENABLED())
		PyDTrace_FUNCTION_RETURN(filename, funcname, lineno);
}

void trace_gc(int generation, long collected, const char *name, void *args);
void trace_gc(int generation, long collected, const char *name, void *args)
{
	if (PyDTrace_GC_START_ENABLED())
		PyDTrace_GC_START(generation);
	if (PyDTrace_GC_DONE_ENABLED())
		PyDTrace_GC_DONE(collected);
	if (PyDTrace_IMPORT_FIND_LOAD_START_ENABLED())
		PyDTrace_IMPORT_FIND_LOAD_START(name);
	PyDTrace_IMPORT_FIND_LOAD_DONE(name, 1);
	PyDTrace_INSTANCE_NEW_START(name, name);
	PyDTrace_INSTANCE_NEW_DONE(name, name);
	if (PyDTrace_AUDIT_ENABLED())
		PyDTrace_AUDIT(name, args);
}
EOF
cc_ok "cpython" ceval.c
cd .. || exit 99

# ---------------------------------------------------------------------
# PostgreSQL: -C for the #define'd types, then postprocess_dtrace.sed

mkdir pg && cd pg || exit 99
cat >postprocess_dtrace.sed <<'EOF'
s/POSTGRESQL_/TRACE_POSTGRESQL_/g
s/( *char \*/(const char */g
s/, *char \*/, const char */g
EOF
# meson: [dtrace, '-C', '-h', '-s', '@INPUT@', '-o', '@OUTPUT@'], the
# source file read from the source tree
"$DTRACE" -C -h -s "$data/postgresql-probes.d" -o probes.h.tmp \
	>../out.txt 2>../err.txt
expect_eq "postgresql: dtrace -C -h -s -o" 0 "$?"
expect_eq "postgresql: stderr" "" "$(cat ../err.txt)"
sed -f postprocess_dtrace.sed probes.h.tmp >probes.h
expect_eq "postgresql: sed" 0 "$?"
no_line "postgresql: every POSTGRESQL_ became TRACE_POSTGRESQL_" \
	'\(^\|[^_]\)POSTGRESQL_' probes.h
cat >expected.txt <<'EOF'
extern void __dtrace_postgresql___transaction__start(unsigned int)
extern void __dtrace_postgresql___transaction__commit(unsigned int)
extern void __dtrace_postgresql___transaction__abort(unsigned int)
extern void __dtrace_postgresql___lwlock__acquire(const char *, int)
extern void __dtrace_postgresql___lwlock__wait__start(const char *, int)
extern void __dtrace_postgresql___lock__wait__start(unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, int)
extern void __dtrace_postgresql___query__parse__start(const char *)
extern void __dtrace_postgresql___query__plan__start(void)
extern void __dtrace_postgresql___query__plan__done(void)
extern void __dtrace_postgresql___query__execute__start(void)
extern void __dtrace_postgresql___sort__start(int, char, int, int, char, int)
extern void __dtrace_postgresql___sort__done(char, long)
extern void __dtrace_postgresql___buffer__read__start(int, unsigned int, unsigned int, unsigned int, unsigned int, int)
extern void __dtrace_postgresql___buffer__read__done(int, unsigned int, unsigned int, unsigned int, unsigned int, int, char)
extern void __dtrace_postgresql___deadlock__found(void)
extern void __dtrace_postgresql___wal__insert(unsigned char, unsigned char)
EOF
grep '^extern void' probes.h >actual.txt
expect_file_eq "postgresql: prototypes (macro types expanded)" \
	expected.txt actual.txt
expect_macros "postgresql" probes.h <<'EOF'
TRACE_POSTGRESQL_TRANSACTION_START
TRACE_POSTGRESQL_TRANSACTION_COMMIT
TRACE_POSTGRESQL_TRANSACTION_ABORT
TRACE_POSTGRESQL_LWLOCK_ACQUIRE
TRACE_POSTGRESQL_LWLOCK_WAIT_START
TRACE_POSTGRESQL_LOCK_WAIT_START
TRACE_POSTGRESQL_QUERY_PARSE_START
TRACE_POSTGRESQL_QUERY_PLAN_START
TRACE_POSTGRESQL_QUERY_PLAN_DONE
TRACE_POSTGRESQL_QUERY_EXECUTE_START
TRACE_POSTGRESQL_SORT_START
TRACE_POSTGRESQL_SORT_DONE
TRACE_POSTGRESQL_BUFFER_READ_START
TRACE_POSTGRESQL_BUFFER_READ_DONE
TRACE_POSTGRESQL_DEADLOCK_FOUND
TRACE_POSTGRESQL_WAL_INSERT
EOF
# the autoconf rule, $(DTRACE) -C -h -s $(srcdir)/probes.d -o $@.tmp,
# gives the same header
mkdir autoconf || exit 99
"$DTRACE" -C -h -s "$data/postgresql-probes.d" -o autoconf/probes.h.tmp \
	>../out.txt 2>../err.txt
expect_eq "postgresql (autoconf rule): exit status" 0 "$?"
expect_file_eq "postgresql (autoconf rule): same header" probes.h.tmp \
	autoconf/probes.h.tmp
cat >backend.c <<'EOF'
#include <stdbool.h>
#include <stddef.h>
#include "probes.h"

typedef unsigned int LocalTransactionId;
typedef unsigned int Oid;

void xact(LocalTransactionId xid, const char *query, bool aborted);
void xact(LocalTransactionId xid, const char *query, bool aborted)
{
	TRACE_POSTGRESQL_TRANSACTION_START(xid);
	TRACE_POSTGRESQL_QUERY_PARSE_START(query);
	TRACE_POSTGRESQL_QUERY_PLAN_START();
	TRACE_POSTGRESQL_QUERY_PLAN_DONE();
	TRACE_POSTGRESQL_QUERY_EXECUTE_START();
	if (TRACE_POSTGRESQL_LWLOCK_WAIT_START_ENABLED())
		TRACE_POSTGRESQL_LWLOCK_WAIT_START("BufferMapping", 1);
	TRACE_POSTGRESQL_LWLOCK_ACQUIRE("WALInsert", 0);
	TRACE_POSTGRESQL_LOCK_WAIT_START(1, 2, 3, 4, 5, 6);
	TRACE_POSTGRESQL_DEADLOCK_FOUND();
	TRACE_POSTGRESQL_WAL_INSERT(3, 0x20);
	if (aborted)
		TRACE_POSTGRESQL_TRANSACTION_ABORT(xid);
	else
		TRACE_POSTGRESQL_TRANSACTION_COMMIT(xid);
}

void sorted(void *tapeset, long spaceUsed, bool random);
void sorted(void *tapeset, long spaceUsed, bool random)
{
	TRACE_POSTGRESQL_SORT_START(0, false, 1, 1024, random, 0);
	TRACE_POSTGRESQL_SORT_DONE(tapeset != NULL, spaceUsed);
}

void readbuf(int fork, unsigned int block, Oid spc, Oid db, Oid rel);
void readbuf(int fork, unsigned int block, Oid spc, Oid db, Oid rel)
{
	TRACE_POSTGRESQL_BUFFER_READ_START(fork, block, spc, db, rel, -1);
	TRACE_POSTGRESQL_BUFFER_READ_DONE(fork, block, spc, db, rel, -1, true);
}
EOF
cc_ok "postgresql" backend.c
cd .. || exit 99

# ---------------------------------------------------------------------
# Ruby

mkdir ruby && cd ruby || exit 99

# configure, RUBY_DTRACE_AVAILABLE: with -xnolibs, then without; each
# must exit 0 and give a header where CONFTEST_FIRE() compiles
echo 'provider conftest{ probe fire(); };' >conftest_provider.d
for opt in -xnolibs ""; do
	rm -f conftest_provider.h
	"$DTRACE" $opt -h -o conftest_provider.h -s conftest_provider.d \
		>../out.txt 2>../err.txt
	expect_eq "ruby configure (${opt:-no option}): exit status" 0 "$?"
	cat >conftest.c <<'EOF'
#include "conftest_provider.h"
int main(void);
int main(void)
{
	CONFTEST_FIRE();
	return 0;
}
EOF
	cc_ok "ruby configure (${opt:-no option})" conftest.c
done
rm -f conftest*

cp "$data/ruby-probes.d" probes.d
cp "$data/ruby-vm_opts.h" vm_opts.h

# Makefile.in, .d.h: $(DTRACE) -o $@.tmp -h -C $(INCFLAGS) -s $<
"$DTRACE" -o probes.h.tmp -h -C -I. -s probes.d >../out.txt 2>../err.txt
expect_eq "ruby: dtrace -o probes.h.tmp -h -C -I. -s probes.d" 0 "$?"
expect_eq "ruby: stderr (the pragmas follow the provider they name)" "" \
	"$(cat ../err.txt)"
sed -e 's/RUBY_/RUBY_DTRACE_/g' -e 's/PROBES_H_TMP/RUBY_PROBES_H/' \
	-e 's/(char \*/(const char */g' -e 's/, char \*/, const char */g' \
	probes.h.tmp >probes.h
# the guard came from the -o name, probes.h.tmp -> _PROBES_H_TMP, and
# the sed renamed it
expect_grep "ruby: guard #ifndef" '^#ifndef _RUBY_PROBES_H$' probes.h
expect_grep "ruby: guard #define" '^#define _RUBY_PROBES_H$' probes.h
no_line "ruby: no PROBES_H_TMP left" 'PROBES_H_TMP' probes.h
expect_macros "ruby" probes.h <<'EOF'
RUBY_DTRACE_METHOD_ENTRY
RUBY_DTRACE_METHOD_RETURN
RUBY_DTRACE_CMETHOD_ENTRY
RUBY_DTRACE_CMETHOD_RETURN
RUBY_DTRACE_REQUIRE_ENTRY
RUBY_DTRACE_REQUIRE_RETURN
RUBY_DTRACE_OBJECT_CREATE
RUBY_DTRACE_ARRAY_CREATE
RUBY_DTRACE_STRING_CREATE
RUBY_DTRACE_PARSE_BEGIN
RUBY_DTRACE_PARSE_END
RUBY_DTRACE_GC_MARK_BEGIN
RUBY_DTRACE_GC_MARK_END
RUBY_DTRACE_METHOD_CACHE_CLEAR
EOF
cat >vm.c <<'EOF'
#include "probes.h"

struct frame {
	const char *klass, *method, *file;
	int line;
};

void hook_call(const struct frame *f, int is_c);
void hook_call(const struct frame *f, int is_c)
{
	if (is_c) {
		if (RUBY_DTRACE_CMETHOD_ENTRY_ENABLED())
			RUBY_DTRACE_CMETHOD_ENTRY(f->klass, f->method, f->file,
						  f->line);
		if (RUBY_DTRACE_CMETHOD_RETURN_ENABLED())
			RUBY_DTRACE_CMETHOD_RETURN(f->klass, f->method,
						   f->file, f->line);
		return;
	}
	if (RUBY_DTRACE_METHOD_ENTRY_ENABLED())
		RUBY_DTRACE_METHOD_ENTRY(f->klass, f->method, f->file, f->line);
	if (RUBY_DTRACE_METHOD_RETURN_ENABLED())
		RUBY_DTRACE_METHOD_RETURN(f->klass, f->method, f->file,
					  f->line);
}

void hook_misc(const char *name, long len, const char *file, int line);
void hook_misc(const char *name, long len, const char *file, int line)
{
	RUBY_DTRACE_REQUIRE_ENTRY(name, file, line);
	RUBY_DTRACE_REQUIRE_RETURN(name, file, line);
	if (RUBY_DTRACE_OBJECT_CREATE_ENABLED())
		RUBY_DTRACE_OBJECT_CREATE(name, file, line);
	RUBY_DTRACE_ARRAY_CREATE(len, file, line);
	RUBY_DTRACE_STRING_CREATE(len, file, line);
	RUBY_DTRACE_PARSE_BEGIN(file, line);
	RUBY_DTRACE_PARSE_END(file, line);
	if (RUBY_DTRACE_GC_MARK_BEGIN_ENABLED())
		RUBY_DTRACE_GC_MARK_BEGIN();
	RUBY_DTRACE_GC_MARK_END();
	RUBY_DTRACE_METHOD_CACHE_CLEAR(name, file, line);
}
EOF
cc_ok "ruby" vm.c

# the #if in probes.d follows the build's options
mkdir usage && cd usage || exit 99
"$DTRACE" -o probes.h.tmp -h -C -I.. -DVM_COLLECT_USAGE_DETAILS=1 \
	-s ../probes.d >../../out.txt 2>../../err.txt
expect_eq "ruby, VM_COLLECT_USAGE_DETAILS=1: exit status" 0 "$?"
expect_grep "ruby, VM_COLLECT_USAGE_DETAILS=1: insn probe" \
	'^#define	RUBY_INSN_OPERAND(arg0, arg1) \\$' probes.h.tmp
cd ../.. || exit 99

# ---------------------------------------------------------------------
# Perl: Configure runs in UU/, the Makefile in the top directory

mkdir perl && cd perl || exit 99
cp "$data/perl-perldtrace.d" perldtrace.d
mkdir UU && cd UU || exit 99
# is dtrace usable at all?
"$DTRACE" -h -s ../perldtrace.d -o perldtrace.tmp >/dev/null 2>&1
expect_eq "perl Configure: dtrace -h -s -o" 0 "$?"
rm -f perldtrace.tmp
# does it take -xnolibs?
"$DTRACE" -h -xnolibs -s ../perldtrace.d -o perldtrace.h >/dev/null 2>&1
expect_eq "perl Configure: dtrace -h -xnolibs -s -o" 0 "$?"
cat >try.c <<'EOF'
#include "perldtrace.h"
int main(void);
int main(void)
{
	PERL_LOADED_FILE("dummy");
	return 0;
}
EOF
cc_ok "perl Configure try.c" try.c
cd .. || exit 99

# Makefile.SH: DTRACE = $dtrace $xnolibs
DTRACE_H=perldtrace.h
"$DTRACE" -xnolibs -h -s perldtrace.d -o $DTRACE_H.in >../out.txt 2>../err.txt
expect_eq "perl: dtrace -xnolibs -h -s -o" 0 "$?"
sed -e '/const/!s/char \*/const char */g' $DTRACE_H.in >$DTRACE_H
# the sed restores const qualifiers that DTrace drops; ours kept them,
# so it has nothing to do
expect_file_eq "perl: the const-restoring sed changes nothing" \
	$DTRACE_H.in $DTRACE_H
expect_macros "perl" $DTRACE_H <<'EOF'
PERL_SUB_ENTRY
PERL_SUB_RETURN
PERL_PHASE_CHANGE
PERL_OP_ENTRY
PERL_LOADING_FILE
PERL_LOADED_FILE
PERL_GLOB_ENTRY
PERL_GLOB_RETURN
EOF
cat >mydtrace.c <<'EOF'
#include "perldtrace.h"

void enter(const char *func, const char *file, int line, const char *stash);
void enter(const char *func, const char *file, int line, const char *stash)
{
	if (PERL_SUB_ENTRY_ENABLED())
		PERL_SUB_ENTRY(func, file, line, stash);
	if (PERL_SUB_RETURN_ENABLED())
		PERL_SUB_RETURN(func, file, line, stash);
	if (PERL_PHASE_CHANGE_ENABLED())
		PERL_PHASE_CHANGE("RUN", "START");
	if (PERL_OP_ENTRY_ENABLED())
		PERL_OP_ENTRY("entersub");
	if (PERL_LOADING_FILE_ENABLED())
		PERL_LOADING_FILE(file);
	if (PERL_LOADED_FILE_ENABLED())
		PERL_LOADED_FILE(file);
	if (PERL_GLOB_ENTRY_ENABLED())
		PERL_GLOB_ENTRY(0, "*.pl");
	if (PERL_GLOB_RETURN_ENABLED())
		PERL_GLOB_RETURN(0, "*.pl");
}
EOF
cc_ok "perl" mydtrace.c
cd .. || exit 99

# ---------------------------------------------------------------------
# PHP: the literal `dtrace` with CC and CFLAGS in the environment, -C,
# output to $@.bak, then a global sed PHP_ -> DTRACE_

mkdir php && cd php || exit 99
mkdir Zend || exit 99
cp "$data/php-zend_dtrace.d" Zend/zend_dtrace.d
CC="$CC" CFLAGS="-g -O2" "$DTRACE" -h -C -s Zend/zend_dtrace.d \
	-o Zend/zend_dtrace_gen.h.bak >../out.txt 2>../err.txt &&
	sed -e 's,PHP_,DTRACE_,g' Zend/zend_dtrace_gen.h.bak >Zend/zend_dtrace_gen.h
expect_eq "php: dtrace -h -C -s -o && sed" 0 "$?"
expect_eq "php: stderr" "" "$(cat ../err.txt)"
no_line "php: no PHP_ left" 'PHP_' Zend/zend_dtrace_gen.h
expect_macros "php" Zend/zend_dtrace_gen.h <<'EOF'
DTRACE_COMPILE_FILE_ENTRY
DTRACE_COMPILE_FILE_RETURN
DTRACE_ERROR
DTRACE_EXCEPTION_CAUGHT
DTRACE_EXCEPTION_THROWN
DTRACE_EXECUTE_ENTRY
DTRACE_EXECUTE_RETURN
DTRACE_FUNCTION_ENTRY
DTRACE_FUNCTION_RETURN
DTRACE_REQUEST_SHUTDOWN
DTRACE_REQUEST_STARTUP
EOF
cat >zend_dtrace.c <<'EOF'
#include "Zend/zend_dtrace_gen.h"

void dtrace_execute(const char *filename, int lineno, const char *func,
		    const char *scope, const char *classname);
void dtrace_execute(const char *filename, int lineno, const char *func,
		    const char *scope, const char *classname)
{
	if (DTRACE_EXECUTE_ENTRY_ENABLED())
		DTRACE_EXECUTE_ENTRY((char *)filename, lineno);
	if (DTRACE_FUNCTION_ENTRY_ENABLED())
		DTRACE_FUNCTION_ENTRY((char *)func, (char *)filename, lineno,
				      (char *)classname, (char *)scope);
	if (DTRACE_FUNCTION_RETURN_ENABLED())
		DTRACE_FUNCTION_RETURN((char *)func, (char *)filename, lineno,
				       (char *)classname, (char *)scope);
	if (DTRACE_EXECUTE_RETURN_ENABLED())
		DTRACE_EXECUTE_RETURN((char *)filename, lineno);
}

void dtrace_misc(char *a, char *b, char *c, int line);
void dtrace_misc(char *a, char *b, char *c, int line)
{
	DTRACE_COMPILE_FILE_ENTRY(a, b);
	DTRACE_COMPILE_FILE_RETURN(a, b);
	if (DTRACE_ERROR_ENABLED())
		DTRACE_ERROR(a, b, line);
	DTRACE_EXCEPTION_CAUGHT(a);
	DTRACE_EXCEPTION_THROWN(a);
	DTRACE_REQUEST_STARTUP(a, b, c);
	DTRACE_REQUEST_SHUTDOWN(a, b, c);
}
EOF
cc_ok "php" zend_dtrace.c
cd .. || exit 99

# ---------------------------------------------------------------------
# QEMU: a generated .dtrace file, -DSTAP_SDT_V2 without -C

mkdir qemu && cd qemu || exit 99
mkdir trace || exit 99
cp "$data/qemu-trace-dtrace.d" trace/trace-dtrace-root.dtrace
"$DTRACE" -DSTAP_SDT_V2 -o trace/trace-dtrace-root.h -h \
	-s trace/trace-dtrace-root.dtrace >../out.txt 2>../err.txt
expect_eq "qemu: dtrace -DSTAP_SDT_V2 -o -h -s" 0 "$?"
expect_eq "qemu: stderr" "" "$(cat ../err.txt)"
expect_grep "qemu: guard from the output name" \
	'^#ifndef _TRACE_DTRACE_ROOT_H$' trace/trace-dtrace-root.h
cat >expected.txt <<'EOF'
extern void __dtrace_qemu___qemu_vfree(void *)
extern void __dtrace_qemu___qemu_anon_ram_alloc(size_t, void *)
extern void __dtrace_qemu___cpu_in(unsigned int, char, unsigned int)
extern void __dtrace_qemu___vm_state_notify(int, int, const char *)
extern void __dtrace_qemu___dma_blk_io(void *, void *, int64_t, _USDT_BOOL)
extern void __dtrace_qemu___memory_region_ops_read(int, void *, uint64_t, uint64_t, unsigned int)
extern void __dtrace_qemu___guest_mem_before(void *, uint64_t, uint8_t)
extern void __dtrace_qemu___vhost_commit(_USDT_BOOL, _USDT_BOOL)
extern void __dtrace_qemu___buf_dump(int8_t *, size_t)
extern void __dtrace_qemu___object_event(void *, int, const char *)
extern void __dtrace_qemu___system_reset_request(void)
EOF
grep '^extern void' trace/trace-dtrace-root.h >actual.txt
expect_file_eq "qemu: prototypes" expected.txt actual.txt
expect_macros "qemu" trace/trace-dtrace-root.h <<'EOF'
QEMU_QEMU_VFREE
QEMU_QEMU_ANON_RAM_ALLOC
QEMU_CPU_IN
QEMU_VM_STATE_NOTIFY
QEMU_DMA_BLK_IO
QEMU_MEMORY_REGION_OPS_READ
QEMU_GUEST_MEM_BEFORE
QEMU_VHOST_COMMIT
QEMU_BUF_DUMP
QEMU_OBJECT_EVENT
QEMU_SYSTEM_RESET_REQUEST
EOF
# what tracetool's dtrace backend generates around the header
{
	cat <<'EOF'
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SDT_USE_VARIADIC 1
#include "trace/trace-dtrace-root.h"
#undef SDT_USE_VARIADIC

EOF
	for ev in qemu_vfree qemu_anon_ram_alloc cpu_in vm_state_notify \
		dma_blk_io memory_region_ops_read guest_mem_before \
		vhost_commit buf_dump object_event system_reset_request; do
		m=QEMU_$(echo "$ev" | tr a-z A-Z)
		printf '#ifndef %s_ENABLED\n#define %s_ENABLED() true\n#error %s_ENABLED() must come from the header\n#endif\n' \
			"$m" "$m" "$m"
	done
	cat <<'EOF'

void events(void *p, size_t n, int8_t *buf, uint64_t a, bool b);
void events(void *p, size_t n, int8_t *buf, uint64_t a, bool b)
{
	if (QEMU_QEMU_VFREE_ENABLED())
		QEMU_QEMU_VFREE(p);
	QEMU_QEMU_ANON_RAM_ALLOC(n, p);
	QEMU_CPU_IN(0x3f8, 1, 0xff);
	QEMU_VM_STATE_NOTIFY(1, 2, "running");
	QEMU_DMA_BLK_IO(p, p, (int64_t)-512, b);
	QEMU_MEMORY_REGION_OPS_READ(0, p, a, a, 4);
	QEMU_GUEST_MEM_BEFORE(p, a, (uint8_t)3);
	QEMU_VHOST_COMMIT(true, b);
	if (QEMU_BUF_DUMP_ENABLED())
		QEMU_BUF_DUMP(buf, n);
	QEMU_OBJECT_EVENT(p, 1, "str");
	QEMU_SYSTEM_RESET_REQUEST();
}
EOF
} >trace-root.c
cc_ok "qemu" trace-root.c -I.
cd .. || exit 99

# ---------------------------------------------------------------------
# glib: meson's wrapper runs dtrace -h, then replaces two strings that
# systemtap's header has (a no-op for ours); two providers' headers end
# up in one translation unit

mkdir glib && cd glib || exit 99
for lib in glib gobject; do
	cp "$data/$lib-probes.d" ${lib}_probes.d
	"$DTRACE" -h -s ${lib}_probes.d -o ${lib}_probes.h \
		>../out.txt 2>../err.txt
	expect_eq "glib ($lib): dtrace -h -s -o" 0 "$?"
	expect_eq "glib ($lib): stderr" "" "$(cat ../err.txt)"
	# the wrapper rewrites the output in place
	cp ${lib}_probes.h ${lib}_probes.h.orig
	sed -e 's/define STAP_HAS_SEMAPHORES 1/undef STAP_HAS_SEMAPHORES/' \
		-e 's/define _SDT_HAS_SEMAPHORES 1/undef _SDT_HAS_SEMAPHORES/' \
		${lib}_probes.h.orig >${lib}_probes.h
	expect_file_eq "glib ($lib): the replacements change nothing" \
		${lib}_probes.h.orig ${lib}_probes.h
done
# one guard per output name, so both headers fit in one file
expect_grep "glib: guard" '^#ifndef _GLIB_PROBES_H$' glib_probes.h
expect_grep "gobject: guard" '^#ifndef _GOBJECT_PROBES_H$' gobject_probes.h
expect_macros "glib" glib_probes.h <<'EOF'
GLIB_MEM_ALLOC
GLIB_MEM_REALLOC
GLIB_MEM_FREE
GLIB_SLICE_ALLOC
GLIB_SLICE_FREE
GLIB_QUARK_NEW
GLIB_MAIN_AFTER_PREPARE
GLIB_MAIN_DISPATCH
GLIB_THREAD_SPAWNED
EOF
expect_macros "gobject" gobject_probes.h <<'EOF'
GOBJECT_TYPE_NEW
GOBJECT_OBJECT_NEW
GOBJECT_OBJECT_REF
GOBJECT_OBJECT_FINALIZE
GOBJECT_SIGNAL_NEW
GOBJECT_SIGNAL_EMIT
GOBJECT_CLOSURE_INVOKE
EOF
cat >gtrace.c <<'EOF'
/* glib_trace.h / gobject_trace.h style: TRACE (PROBE (args)) */
#include "glib_probes.h"
#include "gobject_probes.h"
#define TRACE(probe) probe

void mem(void *mem, void *old, unsigned long n, const char *name,
	 char *tname, void *ctx, void *src, void *cb, void *data);
void mem(void *mem, void *old, unsigned long n, const char *name,
	 char *tname, void *ctx, void *src, void *cb, void *data)
{
	TRACE (GLIB_MEM_ALLOC((void *)mem, (unsigned int)n, 0, 0));
	TRACE (GLIB_MEM_REALLOC((void *)mem, (void *)old, (unsigned int)n, 0));
	TRACE (GLIB_MEM_FREE((void *)mem));
	TRACE (GLIB_SLICE_ALLOC((void *)mem, (unsigned int)n));
	TRACE (GLIB_SLICE_FREE((void *)mem, (unsigned int)n));
	TRACE (GLIB_QUARK_NEW(name, 7));
	TRACE (GLIB_MAIN_AFTER_PREPARE(ctx, -100, 2));
	TRACE (GLIB_MAIN_DISPATCH(ctx, src, name, cb, data));
	TRACE (GLIB_THREAD_SPAWNED(cb, data, tname));
	TRACE (GOBJECT_TYPE_NEW(tname, 80UL, 0UL));
	TRACE (GOBJECT_OBJECT_NEW(data, 80UL));
	TRACE (GOBJECT_OBJECT_REF(data, 80UL, 2));
	TRACE (GOBJECT_OBJECT_FINALIZE(data, 80UL));
	TRACE (GOBJECT_SIGNAL_NEW(1, tname, 80UL));
	TRACE (GOBJECT_SIGNAL_EMIT(1, 0, data, 80UL));
	TRACE (GOBJECT_CLOSURE_INVOKE(cb, 0, data));
	if (GLIB_MEM_ALLOC_ENABLED() || GOBJECT_OBJECT_NEW_ENABLED())
		TRACE (GLIB_MEM_FREE(mem));
}
EOF
cc_ok "glib" gtrace.c
cd .. || exit 99

# ---------------------------------------------------------------------
# libvirt: `# file:`/`# prefix:` lines inside the provider are comments,
# with and without -C (meson runs `dtrace -o H -h -s F` and `-G`)

mkdir libvirt && cd libvirt || exit 99
cp "$data/libvirt-probes.d" libvirt_probes.d
"$DTRACE" -o libvirt_probes.h -h -s libvirt_probes.d >../out.txt 2>../err.txt
expect_eq "libvirt: dtrace -o -h -s" 0 "$?"
expect_eq "libvirt: stderr" "" "$(cat ../err.txt)"
cat >want.txt <<'EOF'
extern void __dtrace_libvirt___event_glib_add_handle(int, int, int, void *, void *, void *)
extern void __dtrace_libvirt___event_glib_remove_handle(int)
extern void __dtrace_libvirt___rpc_socket_new(void *, int, int, pid_t, const char *, const char *)
extern void __dtrace_libvirt___rpc_socket_dispose(void *)
extern void __dtrace_libvirt___qemu_monitor_send_msg(void *, const char *, int)
EOF
grep '^extern void ' libvirt_probes.h >got.txt
expect_file_eq "libvirt: prototypes" want.txt got.txt
# -C gives the same header: cpp sees the comment lines blanked
mkdir c && "$DTRACE" -C -o c/libvirt_probes.h -h -s libvirt_probes.d \
	>../out.txt 2>../err.txt
expect_eq "libvirt: dtrace -C -o -h -s" 0 "$?"
expect_eq "libvirt: -C stderr" "" "$(cat ../err.txt)"
expect_file_eq "libvirt: -C header" libvirt_probes.h c/libvirt_probes.h
cat >ltrace.c <<'EOF'
#include <sys/types.h>
#include "libvirt_probes.h"
void ltrace(void *p, int fd, pid_t pid);
void ltrace(void *p, int fd, pid_t pid)
{
	LIBVIRT_RPC_SOCKET_NEW(p, fd, -1, pid, "127.0.0.1;22", "127.0.0.1;4000");
	LIBVIRT_EVENT_GLIB_REMOVE_HANDLE(fd);
}
EOF
cc_ok "libvirt" ltrace.c
# a real directive is still one: cpp's with -C, an error naming it without
mkdir sub || exit 99
printf '# file: src/x.c\n#include "incl.h"\nprovider inc {\n\tprobe p(T);\n};\n' \
	>sub/incl.d
echo '#define T long' >sub/incl.h
"$DTRACE" -h -s sub/incl.d -o incl.h >../out.txt 2>../err.txt
expect_eq "libvirt: #include without -C" 1 "$?"
expect_grep "libvirt: #include without -C: message" \
	"line 2:1: preprocessor directive '#include' needs the C preprocessor" ../err.txt
# the #include beside the file is found although cpp reads a copy
"$DTRACE" -C -h -s sub/incl.d -o incl.h >../out.txt 2>../err.txt
expect_eq "libvirt: -C with #include beside the file" 0 "$?"
expect_grep "libvirt: -C: the included type" \
	'^extern void __dtrace_inc___p(long)$' incl.h
# an error after comment lines names the file's own line, with -C too
printf 'provider e {\n# file: a.c\n# prefix: a\n\tprobe a(int;\n};\n' >bad.d
for c in "" -C; do
	"$DTRACE" $c -h -s bad.d -o bad.h >../out.txt 2>../err.txt
	expect_eq "libvirt: error '$c': exit status" 1 "$?"
	expect_grep "libvirt: error '$c': position" \
		"^dtrace: failed to compile script bad.d: line 4:" ../err.txt
done
cd .. || exit 99

# ---------------------------------------------------------------------
# sssd: `dtrace -C -h` and `-C -G` on a provider closed without its ';'

mkdir sssd && cd sssd || exit 99
cp "$data/sssd-probes.d" sssd_probes.d
for c in -C ""; do
	"$DTRACE" $c -h -s sssd_probes.d -o stap_generated_probes.h \
		>../out.txt 2>../err.txt
	expect_eq "sssd: dtrace '$c' -h" 0 "$?"
	expect_eq "sssd: '$c': the warning names file and line" \
		"dtrace: warning: sssd_probes.d: line 11: provider 'sssd' is closed without ';' after its '}'; accepted, as systemtap's dtrace does" \
		"$(cat ../err.txt)"
done
cat >want.txt <<'EOF'
extern void __dtrace_sssd___sssd_transaction_start(int)
extern void __dtrace_sssd___sssd_transaction_commit_before(int)
extern void __dtrace_sssd___sdap_search_send(char *, int, char *, char **)
extern void __dtrace_sssd___dp_req_done(char *, int, int, int, char *)
EOF
grep '^extern void ' stap_generated_probes.h >got.txt
expect_file_eq "sssd: prototypes" want.txt got.txt
cat >strace.c <<'EOF'
#include "stap_generated_probes.h"
void strace_(int n, char *m);
void strace_(int n, char *m)
{
	SSSD_SSSD_TRANSACTION_START(n);
	SSSD_DP_REQ_DONE(m, 1, 2, n, m);
}
EOF
cc_ok "sssd" strace.c
if $CC -c -fPIC strace.c -o strace.o 2>../err.txt &&
	"$DTRACE" -C -G -s sssd_probes.d -o stap_probes.o strace.o \
		>../out.txt 2>>../err.txt; then
	pass
	expect_eq "sssd: -C -G writes an ELF object" yes \
		"$(readelf -h stap_probes.o >/dev/null 2>&1 && echo yes)"
else
	fail "sssd: dtrace -C -G"
	sed 's/^/    | /' ../err.txt >&2
fi
# a provider closed without ';' and followed by another still parses
printf 'provider a {\n\tprobe x();\n}\nprovider b {\n\tprobe y();\n};\n' >two.d
"$DTRACE" -h -s two.d -o two.h >../out.txt 2>../err.txt
expect_eq "sssd: two providers, first without ';'" 0 "$?"
expect_grep "sssd: two providers: b's probe" '__dtrace_b___y(void)' two.h
expect_grep "sssd: two providers: the warning" "two.d: line 3: provider 'a'" ../err.txt
cd .. || exit 99

finish
