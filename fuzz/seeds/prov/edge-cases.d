/* hand-written seed: the less common corners of the provider language */
#pragma D option quiet
#pragma D depends_on library net.d
#pragma D attributes Stable/Evolving/ISA provider edge args
# 7 "edge.d"
typedef long long big_t;
typedef struct { int a; } anon_t;
enum color { RED, GREEN };
union u;
inline int TWO = 2;
translator struct tr < int x > { a = x; };
provider edge {
	probe a__b(big_t, anon_t *, enum color, union u *);
	probe x(void) ;
	probe t(int n, char *s) : (string s, int n, int n);
	probe many(int, int, int, int, int, int, int, int, int, int, int, int);
};
BEGIN { trace("{"); }
syscall::read:entry /pid == 1/ { @[probefunc] = count(); }
