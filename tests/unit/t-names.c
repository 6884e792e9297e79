// SPDX-License-Identifier: MIT
/*
 * t-names.c - unit tests of name mangling and attribute names
 * (sdk/prov_names.c): the spellings -h, -G and the consumers share.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "prov.h"
#include "tap.h"

int main(void)
{
	char b[128];
	struct prov_attr a = { PROV_STAB_EVOLVING, PROV_STAB_STABLE,
			       PROV_CLASS_COMMON };

	is_int(prov_pubname("query__start", b, sizeof(b)), 11, "pubname length");
	is_str(b, "query-start", "__ becomes -");
	prov_pubname("a__b__c", b, sizeof(b));
	is_str(b, "a-b-c", "every __ becomes -");
	prov_pubname("a___b", b, sizeof(b));
	is_str(b, "a-_b", "___ is - then _");
	prov_pubname("tick", b, sizeof(b));
	is_str(b, "tick", "plain name unchanged");
	is_int(prov_pubname("query__start", b, 11), -ENAMETOOLONG,
	       "pubname: too small a buffer");
	is_str(b, "", "buffer emptied on overflow");
	is_int(prov_pubname("query__start", b, 12), 11, "exact fit");

	is_int(prov_macro("myapp", "query__start", b, sizeof(b)), 17,
	       "macro length");
	is_str(b, "MYAPP_QUERY_START", "macro name");
	prov_macro("my_app", "a__b__c", b, sizeof(b));
	is_str(b, "MY_APP_A_B_C", "__ in probe becomes _");
	prov_macro("p", "x-y.z", b, sizeof(b));
	is_str(b, "P_X_Y_Z", "- and . become _");
	is_int(prov_macro("myapp", "tick", b, 10), -ENAMETOOLONG,
	       "macro: too small a buffer");
	is_str(b, "", "macro: buffer emptied on overflow");

	prov_func_sym("myapp", "query__start", b, sizeof(b));
	is_str(b, "__dtrace_myapp___query__start", "call target");
	prov_enabled_sym("myapp", "query__start", b, sizeof(b));
	is_str(b, "__dtraceenabled_myapp___query__start", "is-enabled symbol");
	prov_sema_sym("myapp", "query__start", b, sizeof(b));
	is_str(b, "__usdt_sema_myapp___query__start", "semaphore");
	is_int(prov_sema_sym("myapp", "query__start", b, 20), -ENAMETOOLONG,
	       "semaphore: too small a buffer");
	is_str(b, "", "semaphore: buffer emptied on overflow");
	ok(strncmp("__dtrace_myapp___x", PROV_FUNC_PREFIX,
		   strlen(PROV_FUNC_PREFIX)) == 0, "prefix constant");

	is_str(prov_stability_name(PROV_STAB_INTERNAL), "Internal", "stability 0");
	is_str(prov_stability_name(PROV_STAB_STANDARD), "Standard", "stability 7");
	ok(prov_stability_name(8) == NULL, "stability 8 is out of range");
	is_str(prov_class_name(PROV_CLASS_UNKNOWN), "Unknown", "class 0");
	is_str(prov_class_name(PROV_CLASS_COMMON), "Common", "class 5");
	ok(prov_class_name(6) == NULL, "class 6 is out of range");
	prov_attr_str(&a, b, sizeof(b));
	is_str(b, "Evolving/Stable/Common", "attribute string");
	return tap_done();
}
