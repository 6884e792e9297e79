/*
 * One typedef, several names, as C declares them (the Dynamic Tracing
 * Guide's typedef is C's): each declarator has its own '*'s on the
 * shared base type, a struct's tag typedef'd with its pointer alongside
 * (typedef struct s s_t, *sp_t;) before the struct is complete.  Was a
 * syntax error near ",".
 */
#pragma D option quiet

typedef int a_t, *ap_t, **app_t;
typedef struct s s_t, *sp_t;
struct s {
	int x;
	char c;
};
typedef unsigned char u8, *const u8p;
typedef unsigned long size_t, *szp_t;

BEGIN
{
	printf("%d %d %d %d %d %d %d %d\n", sizeof(a_t), sizeof(ap_t),
	    sizeof(app_t), sizeof(s_t), sizeof(sp_t), sizeof(u8), sizeof(u8p),
	    sizeof(size_t));
	x = (a_t)-1;
	y = (u8)-1;
	printf("%d %d\n", x, y);
	/* pointer arithmetic scales by each name's own pointee */
	printf("%d %d %d %d %d\n", (long)((ap_t)0 + 1), (long)((app_t)0 + 1),
	    (long)((sp_t)0 + 1), (long)((u8p)0 + 1), (long)((szp_t)0 + 1));
	this->p = (sp_t)alloca(sizeof(s_t));
	this->p->x = 7;
	this->p->c = 'a';
	printf("%d %c\n", this->p->x, this->p->c);
	exit(0);
}
