#include "vm_opts.h"

/*
 * A provider shaped like a scripting language's: named arguments, probes
 * that exist only in some builds (#if under -C), and the stability
 * attributes given after the provider.  Written for usdt-sdk's tests.
 */
provider ruby {
	probe method__entry(const char *classname, const char *methodname, const char *filename, int lineno);
	probe method__return(const char *classname, const char *methodname, const char *filename, int lineno);
	probe cmethod__entry(const char *classname, const char *methodname, const char *filename, int lineno);
	probe cmethod__return(const char *classname, const char *methodname, const char *filename, int lineno);

	probe require__entry(const char *requiredfile, const char *filename, int lineno);
	probe require__return(const char *requiredfile, const char *filename, int lineno);

	probe object__create(const char *classname, const char *filename, int lineno);
	probe array__create(long length, const char *filename, int lineno);
	probe string__create(long length, const char *filename, int lineno);

	probe parse__begin(const char *sourcefile, int lineno);
	probe parse__end(const char *sourcefile, int lineno);

	probe gc__mark__begin();
	probe gc__mark__end();

	probe method__cache__clear(const char *class, const char *filename, int lineno);

#if VM_COLLECT_USAGE_DETAILS
	probe insn(const char *insns_name);
	probe insn__operand(const char *val, const char *insns_name);
#endif
};

#pragma D attributes Stable/Evolving/Common provider ruby provider
#pragma D attributes Stable/Evolving/Common provider ruby module
#pragma D attributes Stable/Evolving/Common provider ruby function
#pragma D attributes Evolving/Evolving/Common provider ruby name
#pragma D attributes Evolving/Evolving/Common provider ruby args
