/*
 * The Dynamic Tracing Guide's scripts declare before their clauses; a
 * script of declarations alone (a variable, a typedef, a struct, an
 * inline) has nothing that could fire.  It compiles (it is not an empty
 * translation unit), matches no probe, and dtrace refuses to run it, as
 * dtrace(1M) does: "no probes matched", exit 1 (it ran until killed).
 */
int x;
typedef int count_t;
struct point {
	int x;
	int y;
};
inline int SCREEN = 21;
