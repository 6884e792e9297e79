/* a script's own typedef in declarations, members, keys, casts and sizeof */
#pragma D option quiet

typedef int myint;
typedef unsigned long long ull_t;
typedef struct foo foo_t;
typedef char *str_t;
typedef myint *mip_t;
struct foo {
	myint a;
	ull_t b;
	str_t c;
};
myint x;
ull_t y;
foo_t s;
int k[myint, ull_t];

BEGIN
{
	x = -1;
	y = (ull_t)-1;
	k[1, 2] = 3;
	s.a = 7;
	printf("%d %u %d %d %d %d %d\n", x, y, sizeof(myint), sizeof(ull_t), sizeof(foo_t), sizeof(mip_t), k[1, 2]);
	printf("%d %d\n", (myint)0x100000001, s.a);
	exit(0);
}
