/*
 * Types for tests/run-sdt-h.sh: the C integer types, _Bool and bool,
 * the <stdint.h> and <sys/types.h> names, D's string, pointers, typedefs
 * of the file, an enum, and probes of 0 and 12 arguments; a second
 * provider.
 */
typedef unsigned int Oid;
typedef const char *ccstr;
typedef enum color color_t;
struct conn;
enum color { RED, GREEN = 5 };

provider h {
	probe none();
	probe ints(char, signed char, unsigned char, short, unsigned short,
	    int, unsigned, long, unsigned long, long long,
	    unsigned long long, _Bool);
	probe named(int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t,
	    int64_t, uint64_t, size_t, ssize_t, pid_t, uintptr_t);
	probe ptrs(string s, ccstr c, struct conn *p, void *v, Oid o,
	    color_t e) : (Oid o, string s);
	probe flag(bool);
};

provider hx {
	probe x(int);
};
