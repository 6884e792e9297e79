/*
 * sdt.c - probes written with SystemTap's <sys/sdt.h>, whose notes name
 * operands -G never writes (memory, constants, globals, floats): seeds
 * for the stapsdt fuzzer and cases for tests/unit/t-stapsdt.c.  Built
 * only where <sys/sdt.h> is installed (systemtap-sdt-dev).
 */
#include <stdint.h>
#include <sys/sdt.h>

long fz_global = 5;
static int fz_array[4] = { 1, 2, 3, 4 };
volatile double fz_double = 1.5;

__attribute__((noinline)) int sdt_probes(int a, long b, const char *s)
{
	signed char c = (signed char)a;
	unsigned short h = (unsigned short)b;
	double d = fz_double * a;

	STAP_PROBE(fzsdt, none);
	STAP_PROBE3(fzsdt, regs, a, b, s);
	STAP_PROBE3(fzsdt, small, c, h, (uint64_t)b);
	STAP_PROBE2(fzsdt, consts, 42, -7);
	STAP_PROBE2(fzsdt, globals, fz_global, fz_array[a & 3]);
	STAP_PROBE1(fzsdt, flt, d);
	STAP_PROBE6(fzsdt, six, a, b, c, h, a + 1, b - 1);
	return (int)d + a;
}

int main(int argc, char **argv)
{
	return sdt_probes(argc, (long)argc * 3, argv[0]) == 12345;
}
