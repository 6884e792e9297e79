/* SPDX-License-Identifier: MIT */
/*
 * registry_format.h - the helper's registry file, as its two writers and
 * its readers must agree on it (doc/DESIGN.md §6).
 *
 * dtrace-helperd writes it with sdk/registry.c under /run/dtrace, the
 * kernel module dtrace_helper.ko with helper-driver/kmod/dh_main.c under
 * /proc/dtrace; `dtrace -l`, `dtrace -n` and the tests read either with
 * sdk/registry.c.  This header holds the magic line, the grammar, the
 * printf formats of its lines and the escaping rule, so the writers
 * cannot drift apart.  It describes bytes only and has no libc
 * dependency: the module includes it too.
 *
 * One file per registered process, <statedir>/registry/<pid>:
 *
 *	usdt-registry 1\n
 *	pid 4242\n
 *	start 1234567\n			starttime, field 22 of /proc/PID/stat
 *	comm myapp\n			one token
 *	reg GEN BASE DOF DEV INO SIZE ORIGIN MOD PATH\n
 *	<SIZE bytes of DOF>\n
 *	reg ...				one block per registration
 *	end\n
 *
 *	GEN	the generation ADDDOF returned, decimal
 *	BASE	dofhp_addr (load bias), 0x-hex
 *	DOF	dofhp_dof (run-time address of the blob), 0x-hex
 *	DEV INO	the mapped object file (st_dev as 0x-hex, decimal inode),
 *		0 0 when the DOF is not in a file mapping
 *	SIZE	bytes of DOF that follow, decimal
 *	ORIGIN	"ioctl" (the process registered itself), "scan" (found in
 *		its mappings when the daemon started) or "fork" (copied
 *		from its parent's when it was forked)
 *	MOD	dofhp_mod, one token
 *	PATH	the object file as /proc/PID/maps names it, one token; may
 *		end in " (deleted)", escaped like any other text
 *
 * Tokens: bytes <= 0x20, >= 0x7f and '%' are written as %XX (upper-case
 * hex); an empty string is written as "-" and a string that is exactly
 * "-" as "%2D", so every field is one non-empty token without blanks.
 *
 * The DOF is the blob as the helper validated and relocated it: every
 * dofpr_addr is a run-time address in process PID.  A process's identity
 * is (pid, start), so a reused pid is never taken for the registrant.
 */
#ifndef USDT_REGISTRY_FORMAT_H
#define USDT_REGISTRY_FORMAT_H

#define REG_DIR "registry"		   /* under the state directory */
#define REG_MAGIC "usdt-registry 1"	   /* the first line */
#define REG_STATEDIR_DEFAULT "/run/dtrace" /* dtrace-helperd's */
#define REG_STATEDIR_KERNEL "/proc/dtrace" /* dtrace_helper.ko's */
#define REG_STATEDIR_ENV "DTRACE_STATEDIR" /* readers' override */
#define REG_DEVICE_FILE "device" /* the daemon's device, for SYNC */

#define REG_ORIGIN_IOCTL_NAME "ioctl"
#define REG_ORIGIN_SCAN_NAME "scan"
#define REG_ORIGIN_FORK_NAME "fork"
#define REG_END_LINE "end"

/*
 * printf formats of the lines, with every number passed as (unsigned)
 * long long so user space and the kernel use the same strings.  The
 * tokens (comm; MOD and PATH) follow, written with reg_token_byte().
 *
 *	REG_FMT_HEAD	pid (int), start; then the comm token and '\n'
 *	REG_FMT_ENTRY	gen, base, dof, dev, ino, size, origin name; then
 *			MOD, ' ', PATH, '\n', the DOF and '\n'
 */
#define REG_FMT_HEAD REG_MAGIC "\npid %d\nstart %llu\ncomm "
#define REG_FMT_ENTRY "reg %llu 0x%llx 0x%llx 0x%llx %llu %llu %s "
#define REG_ENTRY_NTOK 10 /* tokens of a "reg" line */

/* What an empty string and the string "-" are written as. */
#define REG_TOKEN_EMPTY "-"
#define REG_TOKEN_DASH "%2D"

/* The longest escape of one byte, and of a string of n bytes. */
#define REG_TOKEN_BYTE_MAX 3
#define REG_TOKEN_MAX(n) (REG_TOKEN_BYTE_MAX * (n) + 4)

/*
 * The special spelling of a whole token: REG_TOKEN_EMPTY for "",
 * REG_TOKEN_DASH for "-", else 0 (NULL) and the bytes are escaped one by
 * one with reg_token_byte().
 */
static inline const char *reg_token_special(const char *s)
{
	if (!s[0])
		return REG_TOKEN_EMPTY;
	if (s[0] == '-' && !s[1])
		return REG_TOKEN_DASH;
	return 0;
}

/*
 * Byte c of a token, as written: out gets 1 or REG_TOKEN_BYTE_MAX bytes
 * (not NUL-terminated) and the count is returned.
 */
static inline unsigned int reg_token_byte(unsigned char c,
					  char out[REG_TOKEN_BYTE_MAX])
{
	static const char hex[] = "0123456789ABCDEF";

	if (c > 0x20 && c < 0x7f && c != '%') {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '%';
	out[1] = hex[c >> 4];
	out[2] = hex[c & 15];
	return 3;
}

#endif /* USDT_REGISTRY_FORMAT_H */
