# SPDX-License-Identifier: MIT
#
# usdt.m4 - autoconf support for projects that build USDT probes with
# usdt-sdk (installed in $(datadir)/aclocal).
#
# USDT_INIT([DEFAULT])
#
# Gives the project's configure `--enable-dtrace[=auto|yes|no]' (DEFAULT,
# `auto' when omitted, is what happens without the option), finds the
# dtrace command, and proves that it works the way the build will use
# it: in a private directory (conftest.usdt) it writes a one-probe
# provider, runs `dtrace -h', compiles a program that fires the probe and
# tests its _ENABLED() macro with the project's $CC, $CPPFLAGS and
# $CFLAGS, runs `dtrace -G' over the object, links the result with
# $LDFLAGS and $LIBS and, unless cross-compiling, runs it.  A dtrace that
# merely exists is not enough: a build that fails at -G or at the link
# is exactly what this check exists to catch at configure time.
#
# Where dtrace comes from, first match wins:
#   1. $DTRACE, set by the user (a path, or a name looked up in $PATH);
#   2. the `dtrace' variable of the pkg-config module `usdt', so the
#      usdt-sdk whose usdt.m4 this is wins over another dtrace on $PATH
#      (systemtap-sdt-dev installs one in /usr/bin);
#   3. `dtrace' in $PATH, /usr/sbin and /usr/local/sbin.
#
# With `auto' a dtrace that is missing or fails the check turns probes
# off with a warning; with `yes' it stops configure and says which step
# failed and what to do.  With usdt-sdk's dtrace, -flto builds pass the
# plain check (their probe calls reach the stubs the header defines, and
# -G leaves -flto objects alone).  When the project compiles with -flto
# and the plain check fails (an older dtrace, which refuses bitcode),
# it is tried again with `-x probestyle=inline', whose
# probes are inline NOPs and notes that survive LTO, and with -G run
# without the objects (it cannot read bitcode; it then writes the
# semaphores and drti.o); if that works the option is added to
# DTRACEFLAGS (unless already there) and USDT_LTO is set.  A user's
# DTRACEFLAGS with probestyle=call is taken at its word: no retry.
#
# Results:
#   DTRACE        the dtrace command (AC_SUBST, precious; empty when
#                 probes are off)
#   DTRACEFLAGS   options for every `dtrace -h' and `dtrace -G' run
#                 (AC_SUBST, precious)
#   USDT_CFLAGS   `pkg-config --cflags usdt' (the directory of
#                 usdt-sdk's <sys/sdt.h>), empty without the module
#   USDT_LTO      yes when the objects are -flto bitcode and the probes
#                 inline (see above): usdt.am's -G step then leaves the
#                 objects out and writes only the semaphores and drti.o,
#                 and the probes reach tracers through their notes
#                 (AC_SUBST; a Makefile.am may set it for -flto it adds)
#   HAVE_DTRACE   AC_DEFINEd to 1 when probes are built
#   ENABLE_DTRACE automake conditional, true when probes are built
#   usdt_enabled  shell variable, yes or no, for the project's summary
#
# The rules that use these are in usdt.am, the automake fragment
# (`pkg-config --variable=automake_fragment usdt').

# serial 1

# _USDT_RUN(COMMAND): run COMMAND with its output in config.log; true if
# it exits 0
m4_define([_USDT_RUN],
[{ AS_ECHO(["$as_me:${as_lineno-$LINENO}: AS_ESCAPE([$1])"]) >&AS_MESSAGE_LOG_FD
  ($1) >&AS_MESSAGE_LOG_FD 2>&1
  usdt_status=$?
  AS_ECHO(["$as_me:${as_lineno-$LINENO}: \$? = $usdt_status"]) >&AS_MESSAGE_LOG_FD
  test $usdt_status = 0; }])

# _USDT_TRY(FLAGS, [G-OBJECTS]): build and run the one-probe program
# with `$DTRACE FLAGS', giving -G the object unless G-OBJECTS is `none'
# (an -flto object holds no machine code: -G then runs without it and
# writes the semaphores); on failure usdt_fail names the step that failed
m4_define([_USDT_TRY],
[usdt_fail=
usdt_cmd=$DTRACE
for usdt_f in $1; do usdt_cmd="$usdt_cmd $usdt_f"; done
rm -rf conftest.usdt
AS_MKDIR_P([conftest.usdt])
cat >conftest.usdt/conftest.d <<_USDT_EOF
provider conftest {
	probe fire(int, const char *);
};
_USDT_EOF
cat >conftest.usdt/main.c <<_USDT_EOF
#include "conftest.h"
int main(int argc, char **argv)
{
	if (CONFTEST_FIRE_ENABLED())
		return 2;
	CONFTEST_FIRE(argc, argv@<:@0@:>@);
	return 0;
}
_USDT_EOF
if ! _USDT_RUN([cd conftest.usdt && $DTRACE $1 -h -s conftest.d -o conftest.h]); then
	usdt_fail="\`$usdt_cmd -h' failed"
elif ! _USDT_RUN([cd conftest.usdt && $CC $CPPFLAGS $USDT_CFLAGS $CFLAGS -c main.c -o main.$ac_objext]); then
	usdt_fail="the header from \`$DTRACE -h' does not compile with $CC $CFLAGS"
elif ! _USDT_RUN([cd conftest.usdt && $DTRACE $1 -G -s conftest.d -o probes.$ac_objext]m4_if([$2], [none], [], [[ main.$ac_objext]])); then
	usdt_fail="\`$usdt_cmd -G' failed on an object built with $CC $CFLAGS"
elif ! _USDT_RUN([cd conftest.usdt && $CC $CFLAGS $LDFLAGS -o conftest$ac_exeext main.$ac_objext probes.$ac_objext $LIBS]); then
	usdt_fail="a program linked with the object from \`$DTRACE -G' does not link"
elif test "x$cross_compiling" != xyes &&
     ! _USDT_RUN([cd conftest.usdt && ./conftest$ac_exeext]); then
	usdt_fail="a program built with \`$DTRACE -h' and \`-G' does not run"
fi
rm -rf conftest.usdt
test -z "$usdt_fail"])

AC_DEFUN([USDT_INIT],
[AC_REQUIRE([AC_PROG_CC])dnl
m4_ifdef([PKG_PROG_PKG_CONFIG], [AC_REQUIRE([PKG_PROG_PKG_CONFIG])],
	 [AC_PATH_TOOL([PKG_CONFIG], [pkg-config])])dnl
AC_ARG_VAR([DTRACE], [dtrace command that builds USDT probes (-h, -G)])dnl
AC_ARG_VAR([DTRACEFLAGS], [options for every dtrace -h and -G run])dnl
m4_case(m4_default([$1], [auto]), [auto], [], [yes], [], [no], [],
	[m4_fatal([USDT_INIT: DEFAULT must be auto, yes or no, not `$1'])])dnl
AC_ARG_ENABLE([dtrace],
	[AS_HELP_STRING([--enable-dtrace@<:@=auto|yes|no@:>@],
		[build static probes (USDT) with dtrace -h and -G
		 @<:@default=]m4_default([$1], [auto])[@:>@])],
	[], [enable_dtrace=m4_default([$1], [auto])])
AS_CASE([$enable_dtrace],
	[yes|no|auto], [],
	[AC_MSG_ERROR([bad value `$enable_dtrace' for --enable-dtrace: use auto, yes or no])])

dnl The module's include directory (usdt-sdk's <sys/sdt.h>), used by the
dnl check below and by the project's compiler flags.
AS_IF([test -z "${USDT_CFLAGS+set}" && test -n "$PKG_CONFIG" &&
       $PKG_CONFIG --exists usdt 2>/dev/null],
      [USDT_CFLAGS=`$PKG_CONFIG --cflags usdt 2>/dev/null`])
AC_SUBST([USDT_CFLAGS])

usdt_enabled=no
usdt_why=
USDT_LTO=no
AS_IF([test "x$enable_dtrace" != xno], [
	dnl 1. $DTRACE (a name is looked up in $PATH, as AC_PATH_PROG does
	dnl not); 2. usdt-sdk's own, from pkg-config; 3. $PATH
	usdt_prog=dtrace
	AS_CASE([$DTRACE],
		[""], [],
		[*/*], [],
		[usdt_prog=$DTRACE; DTRACE=])
	AS_IF([test -z "$DTRACE" && test "x$usdt_prog" = xdtrace &&
	       test -n "$PKG_CONFIG"], [
		usdt_pc_dtrace=`$PKG_CONFIG --variable=dtrace usdt 2>/dev/null`
		AS_IF([test -n "$usdt_pc_dtrace" && test -x "$usdt_pc_dtrace"],
		      [DTRACE=$usdt_pc_dtrace])
	])
	AC_PATH_PROG([DTRACE], [$usdt_prog], [],
		     [$PATH$PATH_SEPARATOR/usr/sbin$PATH_SEPARATOR/usr/local/sbin])
	AS_IF([test -z "$DTRACE"], [
		AS_IF([test "x$usdt_prog" = xdtrace],
		      [usdt_why="no dtrace command found: install usdt-sdk (and make \`pkg-config usdt' find it), or set DTRACE=/path/to/dtrace"],
		      [usdt_why="DTRACE=$usdt_prog is not in \$PATH"])
	], [
		AC_CACHE_CHECK([which dtrace $DTRACE is], [usdt_cv_dtrace_kind], [
			usdt_v=`$DTRACE -V 2>/dev/null` || usdt_v=
			AS_CASE([$usdt_v],
				[*usdt-sdk*], [usdt_cv_dtrace_kind=`AS_ECHO(["$usdt_v"]) | sed -n '1s/.*(\(usdt-sdk@<:@^)@:>@*\)).*/\1/p'`],
				[*": "*], [usdt_cv_dtrace_kind=`AS_ECHO(["$usdt_v"]) | sed -n '1s/^@<:@^:@:>@*: *//p'`],
				[usdt_cv_dtrace_kind="not usdt-sdk's: no -V (systemtap's?)"])])
		AC_CACHE_CHECK([whether $DTRACE -h and -G build a working program],
			       [usdt_cv_dtrace_works], [
			usdt_cv_dtrace_works=no
			AS_IF([_USDT_TRY([$DTRACEFLAGS])],
			      [usdt_cv_dtrace_works=yes],
			      [usdt_cv_dtrace_fail=$usdt_fail
			       dnl -flto objects are bitcode: inline probes, and
			       dnl -G without the objects (unless the user chose
			       dnl the call style)
			       AS_CASE([" $CFLAGS ":" $DTRACEFLAGS "],
				[*:*probestyle=call*], [],
				[*" -flto"*:*probestyle=inline*],
				[usdt_inline=$DTRACEFLAGS],
				[*" -flto"*:*],
				[usdt_inline="$DTRACEFLAGS -x probestyle=inline"],
				[usdt_inline=none])
			       AS_IF([test "x$usdt_inline" != xnone], [
				AS_IF([_USDT_TRY([$usdt_inline], [none])],
				      [usdt_cv_dtrace_works="yes, with -x probestyle=inline and -G without the -flto objects"])])])
		])
		AS_CASE([$usdt_cv_dtrace_works],
			[yes], [usdt_enabled=yes],
			[*probestyle=inline*], [
				usdt_enabled=yes
				USDT_LTO=yes
				AS_CASE([" $DTRACEFLAGS "],
					[*probestyle=inline*], [],
					[DTRACEFLAGS="${DTRACEFLAGS:+$DTRACEFLAGS }-x probestyle=inline"])],
			[usdt_why="${usdt_cv_dtrace_fail:-the check failed}; the commands and their messages are in config.log"
			 AS_CASE([" $CFLAGS "],
				[*" -flto"*],
				[usdt_why="$usdt_why.  With -flto, dtrace -G finds no machine code to rewrite, and inline probes (-x probestyle=inline) did not work either: build without -flto"])])
	])
	AS_IF([test "x$usdt_enabled" = xno], [
		AS_IF([test "x$enable_dtrace" = xyes],
		      [AC_MSG_ERROR([--enable-dtrace was given, but $usdt_why])],
		      [AC_MSG_WARN([building without USDT probes: $usdt_why])])
	])
])
AC_MSG_CHECKING([whether to build USDT probes])
AS_IF([test "x$usdt_enabled" = xyes], [
	AC_MSG_RESULT([yes, with $DTRACE${DTRACEFLAGS:+ $DTRACEFLAGS}])
	AC_DEFINE([HAVE_DTRACE], [1],
		  [Define to 1 if USDT probes are built with dtrace -h and -G.])
], [
	AC_MSG_RESULT([no])
	DTRACE=
])
AC_SUBST([DTRACE])
AC_SUBST([DTRACEFLAGS])
AC_SUBST([USDT_LTO])
m4_ifdef([AM_CONDITIONAL],
	 [AM_CONDITIONAL([ENABLE_DTRACE], [test "x$usdt_enabled" = xyes])])dnl
])
