/*
 * sizeof and offsetof of structs and unions laid out as the x86-64
 * SysV ABI lays out C (the same declarations through gcc give these
 * numbers): padding before a member to its alignment and at the end to
 * the struct's, a union's members all at 0, nested structs aligned as
 * their largest member, arrays as their element, pointers 8 bytes.
 */
#pragma D option quiet

struct inner { char c; long v; };
struct pad { char a; int b; short c; long long d; char e; };
union u { char c; int i; long long l; short s[3]; };
union small { char c[5]; short s; };
struct outer {
	int x;
	struct inner in;
	char tail;
	struct inner *p;
	union u uu;
	unsigned char flags[3], last;
};
struct fwd;
struct chars { char a, b, c; };
struct vp { char c; void *p; unsigned short u; _Bool b; };

BEGIN
{
	printf("pad %d: %d %d %d %d %d\n", sizeof (struct pad),
	    offsetof(struct pad, a), offsetof(struct pad, b),
	    offsetof(struct pad, c), offsetof(struct pad, d),
	    offsetof(struct pad, e));
	printf("inner %d: %d\n", sizeof (struct inner),
	    offsetof(struct inner, v));
	printf("u %d: %d %d; small %d\n", sizeof (union u),
	    offsetof(union u, l), offsetof(union u, s), sizeof (union small));
	printf("outer %d: %d %d %d %d %d %d\n", sizeof (struct outer),
	    offsetof(struct outer, in), offsetof(struct outer, tail),
	    offsetof(struct outer, p), offsetof(struct outer, uu),
	    offsetof(struct outer, flags), offsetof(struct outer, last));
	printf("chars %d, pointer %d\n", sizeof (struct chars),
	    sizeof (struct fwd *));
	printf("vp %d: %d %d %d\n", sizeof (struct vp), offsetof(struct vp, p),
	    offsetof(struct vp, u), offsetof(struct vp, b));
	exit(0);
}
