#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-h-errors.sh: every error of the provider compiler, through the real
# `dtrace -h` command.  For each bad script this proves the exit status
# (1), the exact first line of stderr (`dtrace: failed to compile script
# FILE: line N:C: message`), that nothing is printed on stdout, and that
# the run leaves nothing behind: no output file and no temporary file in
# the output directory.  Every case is then run a second time over an
# existing output header, which must stay byte-identical with its mtime.
# A few cases compare the whole of stderr (caret line, hint).

. "$top_srcdir/tests/lib.sh"

P="dtrace: failed to compile script e.d:"
first_from=all		# "dtrace": compare the first line that dtrace wrote

first_line() {
	if [ "$first_from" = dtrace ]; then
		grep '^dtrace:' err.txt | sed -n 1p
	else
		sed -n 1p err.txt
	fi
}

# run_fail NAME FIRST_LINE DTRACE_ARGS...: run dtrace with DTRACE_ARGS plus
# `-o out/e.h`, twice: into an empty out/, then over an existing out/e.h.
run_fail() {
	rf_name=$1 rf_first=$2
	shift 2

	rm -rf out && mkdir out || exit 99
	run_dtrace "$@" -o out/e.h
	expect_eq "$rf_name: exit status" 1 "$status"
	expect_eq "$rf_name: first line of stderr" "$rf_first" "$(first_line)"
	expect_eq "$rf_name: stdout" "" "$(cat out.txt)"
	expect_eq "$rf_name: nothing left in the output directory" "" \
		"$(ls -A out)"

	printf '/* a previous header */\n#define KEEP 1\n' >out/e.h
	touch -d @1000000000 out/e.h
	cp -p out/e.h keep.h
	run_dtrace "$@" -o out/e.h
	expect_eq "$rf_name (existing output): exit status" 1 "$status"
	expect_eq "$rf_name (existing output): first line of stderr" \
		"$rf_first" "$(first_line)"
	if cmp -s keep.h out/e.h; then
		pass
	else
		fail "$rf_name (existing output): out/e.h was changed"
	fi
	expect_eq "$rf_name (existing output): mtime" 1000000000 \
		"$(stat -c %Y out/e.h)"
	expect_eq "$rf_name (existing output): output directory" "e.h" \
		"$(ls -A out)"
}

# err_case NAME SCRIPT FIRST_LINE [DTRACE_OPTIONS...]: SCRIPT is written
# to e.d (with a final newline) and compiled with -h -s e.d.
err_case() {
	ec_name=$1 ec_text=$2 ec_first=$3
	shift 3
	printf '%s\n' "$ec_text" >e.d
	run_fail "$ec_name" "$ec_first" "$@" -h -s e.d
}

# expect_stderr NAME: the whole stderr of the last run equals stdin
expect_stderr() {
	cat >expected.txt
	expect_file_eq "$1: stderr" expected.txt err.txt
}

# last_line NAME EXPECTED: the last line of stderr (the hint)
expect_last_line() {
	expect_eq "$1: last line of stderr" "$2" "$(sed -n '$p' err.txt)"
}

sse_hint="dtrace: hint: floating-point arguments travel in SSE registers, which uprobe consumers cannot read; pass a scaled integer instead"

# ---------------------------------------------------------------------
# Types

err_case "unknown type" 'provider p { probe a(foo_t); };' \
	"$P line 1:22: unknown type name 'foo_t' in argument 1 of probe 'a'"

# the position is exact: line 4, column 15 (a tab counts as one column)
printf 'typedef unsigned int Oid;\nprovider p {\n\tprobe a(Oid, int);\n\tprobe b(Oid, Oid_t *);\n};\n' >e.d
run_fail "unknown type, position" \
	"$P line 4:15: unknown type name 'Oid_t' in argument 2 of probe 'b'" \
	-h -s e.d
printf '%s\n' "$P line 4:15: unknown type name 'Oid_t' in argument 2 of probe 'b'" \
	"    	probe b(Oid, Oid_t *);" \
	"    	             ^" \
	"dtrace: hint: declare it first, e.g. 'typedef unsigned int Oid;', or pass it with -C and a #define" |
	expect_stderr "unknown type, position"

err_case "float" 'provider p { probe a(float); };' \
	"$P line 1:22: floating-point type 'float' cannot be passed by value in argument 1 of probe 'a'"
expect_last_line "float" "$sse_hint"
cat <<EOF | expect_stderr "float"
$P line 1:22: floating-point type 'float' cannot be passed by value in argument 1 of probe 'a'
    provider p { probe a(float); };
                         ^
$sse_hint
EOF

err_case "double" 'provider p { probe a(int, double x); };' \
	"$P line 1:27: floating-point type 'double' cannot be passed by value in argument 2 of probe 'a'"
expect_last_line "double" "$sse_hint"

err_case "long double" 'provider p { probe a(long double); };' \
	"$P line 1:22: floating-point type 'long double' cannot be passed by value in argument 1 of probe 'a'"
expect_last_line "long double" "$sse_hint"

err_case "typedef of double" 'typedef double real;
provider p { probe a(real); };' \
	"$P line 2:22: floating-point type 'real' cannot be passed by value in argument 1 of probe 'a'"
expect_last_line "typedef of double" "$sse_hint"

err_case "float in translated arguments" \
	'provider p { probe a(int x) : (float x); };' \
	"$P line 1:32: floating-point type 'float' cannot be passed by value in translated argument 1 of probe 'a'"

err_case "long float" 'provider p { probe a(long float); };' \
	"$P line 1:22: invalid floating-point type 'long float' in argument 1 of probe 'a'"

err_case "struct by value" 'struct s; provider p { probe a(struct s); };' \
	"$P line 1:32: struct 'struct s' cannot be passed by value in argument 1 of probe 'a'"
expect_last_line "struct by value" "dtrace: hint: pass a pointer to it instead"

err_case "union by value" 'provider p { probe a(int, union u); };' \
	"$P line 1:27: union 'union u' cannot be passed by value in argument 2 of probe 'a'"
expect_last_line "union by value" "dtrace: hint: pass a pointer to it instead"

err_case "typedef of a struct by value" 'typedef struct s s_t;
provider p { probe a(s_t); };' \
	"$P line 2:22: struct 's_t' cannot be passed by value in argument 1 of probe 'a'"

err_case "array argument" 'provider p { probe a(int x[4]); };' \
	"$P line 1:27: array types are not supported in argument 1 of probe 'a'"
expect_last_line "array argument" \
	"dtrace: hint: pass a pointer to the first element instead"

err_case "unnamed array argument" 'provider p { probe a(char[16]); };' \
	"$P line 1:26: array types are not supported in argument 1 of probe 'a'"

err_case "function pointer" 'provider p { probe a(int (*)(int)); };' \
	"$P line 1:26: function and function pointer types are not supported in argument 1 of probe 'a'"
expect_last_line "function pointer" \
	"dtrace: hint: cast it to 'uintptr_t' or 'void *'"

err_case "named function pointer" 'provider p { probe a(void (*cb)(void)); };' \
	"$P line 1:27: function and function pointer types are not supported in argument 1 of probe 'a'"

err_case "void as a typed argument" 'provider p { probe a(void x); };' \
	"$P line 1:22: type 'void' cannot be passed by value in argument 1 of probe 'a'"
expect_last_line "void as a typed argument" \
	"dtrace: hint: a probe with no arguments is written 'probe name()' or 'probe name(void)'"

err_case "void after another argument" 'provider p { probe a(int, void); };' \
	"$P line 1:27: type 'void' cannot be passed by value in argument 2 of probe 'a'"

err_case "13 arguments" \
	'provider p { probe a(int, int, int, int, int, int, int, int, int, int, int, int, long); };' \
	"$P line 1:82: probe 'a' has more than 12 arguments"
expect_last_line "13 arguments" \
	"dtrace: hint: pass a pointer to a structure that holds the rest"

err_case "'*' without a type" 'provider p { probe a(*); };' \
	"$P line 1:22: expected a type before '*' in argument 1 of probe 'a'"

err_case "two base types" 'provider p { probe a(string int); };' \
	"$P line 1:29: 'int' cannot follow another type in argument 1 of probe 'a'"

err_case "struct without a tag" 'provider p { probe a(struct *); };' \
	"$P line 1:29: expected a tag name after 'struct', found '*'"

err_case "anonymous struct in a probe" 'provider p { probe a(struct { int x; } *v); };' \
	"$P line 1:29: anonymous struct types are not supported in argument 1 of probe 'a'"

err_case "anonymous struct typedef by value" 'typedef struct { int x; } t;
provider p { probe a(t v); };' \
	"$P line 2:22: struct 't' cannot be passed by value in argument 1 of probe 'a'"

err_case "missing type" 'provider p { probe a(, int); };' \
	"$P line 1:22: expected a type in argument 1 of probe 'a', found ','"

err_case "qualifier without a type" 'provider p { probe a(const); };' \
	"$P line 1:27: expected a type in argument 1 of probe 'a', found ')'"

err_case "long char" 'provider p { probe a(long char); };' \
	"$P line 1:22: invalid combination of type specifiers 'long char' in argument 1 of probe 'a'"

err_case "unsigned signed" 'provider p { probe a(unsigned signed int); };' \
	"$P line 1:22: invalid combination of type specifiers 'unsigned signed int' in argument 1 of probe 'a'"

# a DOF type string holds at most 128 bytes with its NUL: "char " and
# 122 stars are 127 characters and fit, one more star does not
stars=$(printf '%0122d' 0 | tr 0 '*')
printf 'provider p { probe a(char %s); };\n' "$stars" >e.d
run_dtrace -h -s e.d -o ok.h
expect_eq "127-character type name: exit status" 0 "$status"
err_case "128-character type name" "provider p { probe a(char $stars*); };" \
	"$P line 1:22: type name 'char ***********************************...' is longer than 127 characters in argument 1 of probe 'a'"

# ---------------------------------------------------------------------
# Typedefs and tag declarations

err_case "typedef without a name" 'typedef int;' \
	"$P line 1:12: expected a name for the typedef, found ';'"

err_case "typedef without ';'" 'typedef int x' \
	"$P line 2:1: expected ';' after typedef, found end of file"

# the message names the type the typedef had, not the typedef itself
err_case "typedef redefined" 'typedef int a;
typedef long a;' \
	"$P line 2:14: typedef 'a' redefined as 'long' (it was 'int' on line 1)"

err_case "unterminated struct definition" 'struct s { int x;' \
	"$P line 2:1: expected '}' to close the type definition opened on line 1, found end of file"

err_case "struct declaration with a declarator" 'struct s foo;' \
	"$P line 1:10: expected ';' after 'struct' declaration, found 'foo'"

err_case "unterminated inline" 'inline int x = 1' \
	"$P line 1:1: 'inline' definition is not terminated by ';'"

# ---------------------------------------------------------------------
# Providers and probes

err_case "provider name ending in a digit" 'provider p1 { probe a(); };' \
	"$P line 1:10: provider name 'p1' must not end with a digit"
expect_last_line "provider name ending in a digit" \
	"dtrace: hint: consumers name a process's provider by appending its pid (myapp1234), so a trailing digit would be ambiguous"

# 53 characters leave room for a 10-digit pid below 64; 54 do not
name53=$(printf '%053d' 0 | tr 0 a)
printf 'provider %s { probe a(); };\n' "$name53" >e.d
run_dtrace -h -s e.d -o ok.h
expect_eq "53-character provider name: exit status" 0 "$status"
err_case "54-character provider name" "provider ${name53}b { probe a(); };" \
	"$P line 1:10: provider name '${name53}b' is too long (at most 53 characters, leaving room for a pid)"

# a probe name may have 63 characters (64 with the NUL), counted after
# "__" became "-"
name63=$(printf '%063d' 0 | tr 0 b)
printf 'provider p { probe %s(); probe x__%s(); };\n' "$name63" \
	"$(printf '%060d' 0 | tr 0 c)" >e.d
run_dtrace -h -s e.d -o ok.h
expect_eq "63-character probe names: exit status" 0 "$status"
err_case "64-character probe name" "provider p { probe ${name63}c(); };" \
	"$P line 1:20: probe name '${name63}c' is too long (at most 63 characters)"

err_case "duplicate probe" 'provider p {
	probe a();
	probe a(int);
};' \
	"$P line 3:8: probe 'a' is declared twice in provider 'p' (first on line 2)"

err_case "duplicate provider" 'provider p { probe a(); };
provider q { probe a(); };
provider p { probe b(); };' \
	"$P line 3:10: provider 'p' is defined twice (first on line 1)"

err_case "missing ';' after a probe" 'provider p {
	probe a()
	probe b();
};' \
	"$P line 3:2: expected ';' after the declaration of probe 'a', found 'probe'"

# a provider closed without its ';' is accepted with a warning, as
# systemtap's dtrace accepts it (sssd): run-h-projects.sh

err_case "missing '}' at end of file" 'provider p {
	probe a();' \
	"$P line 3:1: expected '}' to close provider 'p' (opened on line 1), found end of file"

err_case "missing '{'" 'provider p probe a(); };' \
	"$P line 1:12: expected '{' after the provider name, found 'probe'"

err_case "provider without a name" 'provider { probe a(); };' \
	"$P line 1:10: expected a provider name after 'provider', found '{'"

err_case "probe without a name" 'provider p { probe (int); };' \
	"$P line 1:20: expected a probe name after 'probe', found '('"

err_case "typo in 'probe'" 'provider p { prob a(); };' \
	"$P line 1:14: expected 'probe' or '}' in provider 'p', found 'prob'"

err_case "bad argument separator" 'provider p { probe a(int; };' \
	"$P line 1:25: expected ',' or ')' in the argument list of probe 'a', found ';'"

err_case "probe outside a provider" 'probe a(int);' \
	"$P line 1:1: syntax error near 'probe': probes are declared inside 'provider NAME { ... };'"

# a misspelt keyword must not be skipped as if it were a D clause
err_case "typo in 'provider'" 'provder foo {
	probe a();
};' \
	"$P line 1:9: syntax error near 'foo'"

err_case "translated argument names no native one" \
	'provider p { probe a(int x) : (int y); };' \
	"$P line 1:31: translated argument 1 'y' of probe 'a' matches no native argument"

err_case "more translated than native arguments" \
	'provider p { probe a(int) : (int, int); };' \
	"$P line 1:29: translated argument 2 of probe 'a' has no native argument 2 to map to"

# ---------------------------------------------------------------------
# Lexical errors, clauses

err_case "unterminated comment" 'provider p {
	probe a();
};
/* the end
provider q { probe b(); };' \
	"$P line 4:1: unterminated comment (it starts here)"

err_case "unterminated comment inside a provider" 'provider p {
	probe a();  /* one
	probe b();
};' \
	"$P line 2:14: unterminated comment (it starts here)"

err_case "unterminated string in a clause" 'provider p { probe a(); };
BEGIN
{
	printf("hello);
}' \
	"$P line 4:9: unterminated string"

err_case "unterminated character constant" "BEGIN { x = 'a; }" \
	"$P line 1:13: unterminated character constant"

err_case "stray '}'" '}' \
	"$P line 1:1: syntax error near '}': expected a provider definition"

err_case "unterminated predicate" 'BEGIN / x == 1' \
	"$P line 1:1: predicate of clause is not terminated"

err_case "clause without a body" 'BEGIN' \
	"$P line 1:1: clause 'BEGIN' has no body: expected '{'"

err_case "unterminated clause" 'BEGIN {
	x = 1;' \
	"$P line 3:1: expected '}' to close the clause opened on line 1, found end of file"

printf 'provider p {\000 probe a(); };\n' >e.d
run_fail "NUL byte" "$P e.d holds NUL bytes: it is not a D source file" \
	-h -s e.d

# ---------------------------------------------------------------------
# Directives

err_case "#include without -C" '#include "types.h"
provider p { probe a(); };' \
	"$P line 1:1: preprocessor directive '#include' needs the C preprocessor"
expect_last_line "#include without -C" \
	"dtrace: hint: run dtrace with -C to preprocess the file"

err_case "#if without -C" 'provider p {
#if 1
	probe a();
#endif
};' \
	"$P line 2:1: preprocessor directive '#if' needs the C preprocessor"

err_case "line number too large" '#line 200000000 "x.d"' \
	"$P line 1:1: line number too large"

err_case "bad stability name" '#pragma D attributes Bogus/Evolving/Common provider p provider
provider p { probe a(); };' \
	"$P line 1:1: invalid stability level 'Bogus' in #pragma D attributes"
expect_last_line "bad stability name" \
	"dtrace: hint: stability levels are Internal, Private, Obsolete, External, Unstable, Evolving, Stable and Standard"

err_case "bad data stability" 'provider p { probe a(); };
#pragma D attributes Evolving/Changing provider p args' \
	"$P line 2:1: invalid stability level 'Changing' in #pragma D attributes"

err_case "bad class" 'provider p { probe a(); };
#pragma D attributes Evolving/Evolving/Bogus provider p name' \
	"$P line 2:1: invalid dependency class 'Bogus' in #pragma D attributes"
expect_last_line "bad class" \
	"dtrace: hint: dependency classes are Unknown, CPU, Platform, Group, ISA and Common"

err_case "bad target" 'provider p { probe a(); };
#pragma D attributes Evolving/Evolving/Common provider p probes' \
	"$P line 2:1: invalid attribute target 'probes'"
expect_last_line "bad target" \
	"dtrace: hint: the form is '#pragma D attributes Name/Data/Class provider NAME provider|module|function|name|args'"

err_case "four attribute fields" \
	'#pragma D attributes Stable/Stable/Common/Common provider p name' \
	"$P line 1:1: invalid attributes 'Stable/Stable/Common/Common': more than three fields"

err_case "attributes not for a provider" \
	'#pragma D attributes Stable probe p name' \
	"$P line 1:1: #pragma D attributes applies only to a provider"

err_case "attributes without anything" '#pragma D attributes' \
	"$P line 1:1: #pragma D attributes needs attributes"

err_case "attributes without a provider name" \
	'#pragma D attributes Stable provider' \
	"$P line 1:1: #pragma D attributes needs a provider name"

err_case "attributes without a target" \
	'#pragma D attributes Stable provider p' \
	"$P line 1:1: #pragma D attributes needs what it applies to"

err_case "empty #pragma D" '#pragma D' \
	"$P line 1:1: empty '#pragma D' directive"

err_case "unknown #pragma D" '#pragma D frobnicate' \
	"$P line 1:1: unknown control directive '#pragma D frobnicate'"

# a pragma for a provider the file does not define is a warning, not an
# error (DTrace drops it silently)
printf '#pragma D attributes Stable provider q name\nprovider p { probe a(); };\n' >e.d
rm -rf out && mkdir out
run_dtrace -h -s e.d -o out/e.h
expect_eq "pragma for another provider: exit status" 0 "$status"
expect_eq "pragma for another provider: stderr" \
	"dtrace: warning: e.d: line 1: #pragma D attributes names provider 'q', which this file does not define; ignored" \
	"$(cat err.txt)"
expect_eq "pragma for another provider: output" "e.h" "$(ls -A out)"

# ---------------------------------------------------------------------
# Unreadable scripts

run_fail "nonexistent script" \
	"dtrace: failed to compile script nosuch.d: cannot open nosuch.d: No such file or directory" \
	-h -s nosuch.d
run_fail "nonexistent script with -C" \
	"dtrace: failed to compile script nosuch.d: cannot open nosuch.d: No such file or directory" \
	-C -h -s nosuch.d

# root reads a chmod 000 file anyway, so a directory stands in for an
# unreadable script everywhere
mkdir dir.d
run_fail "directory as script" \
	"dtrace: failed to compile script dir.d: cannot read dir.d: Is a directory" \
	-h -s dir.d
# with -C too: dtrace must say it, not leave cpp to report a confusing
# "No such file or directory"
run_fail "directory as script with -C" \
	"dtrace: failed to compile script dir.d: cannot read dir.d: Is a directory" \
	-C -h -s dir.d

if [ "$(id -u)" -ne 0 ]; then
	printf 'provider p { probe a(); };\n' >secret.d
	chmod 000 secret.d
	run_fail "unreadable script" \
		"dtrace: failed to compile script secret.d: cannot open secret.d: Permission denied" \
		-h -s secret.d
	chmod 600 secret.d
else
	echo "# running as root: chmod 000 cannot make a file unreadable, skipped"
fi

# ---------------------------------------------------------------------
# The C preprocessor (-C)

# cpp reports the #error itself, then dtrace says that cpp failed
first_from=dtrace
err_case "#error under -C" 'provider p { probe a(); };
#error boom' \
	"$P the preprocessor 'cpp' failed (exit status 1)" -C
expect_grep "#error under -C: cpp's own message" '#error boom' err.txt
first_from=all

CPP=/nonexistent/cpp
export CPP
err_case "CPP does not exist" 'provider p { probe a(); };' \
	"$P cannot run the preprocessor '/nonexistent/cpp': No such file or directory" -C
expect_last_line "CPP does not exist" \
	"dtrace: hint: install cpp, or name one with the CPP environment variable"
unset CPP

# errors after cpp still point into the user's file (the line is not
# indented: how cpp rewrites leading blanks is its own business)
err_case "unknown type under -C" '#define A 1

provider p {
#if A
probe a(foo_t);
#endif
};' \
	"$P line 5:9: unknown type name 'foo_t' in argument 1 of probe 'a'" -C

# ---------------------------------------------------------------------
# A run without -o that fails writes no e.h in the current directory

mkdir cwd && cd cwd || exit 99
printf 'provider p { probe a(float); };\n' >e.d
run_dtrace -h -s e.d
expect_eq "default output: exit status" 1 "$status"
expect_eq "default output: nothing written" "e.d err.txt out.txt" \
	"$(ls -A | tr '\n' ' ' | sed 's/ $//')"
cd .. || exit 99

finish
