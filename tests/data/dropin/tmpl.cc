// C++: the header inside extern "C++", a probe in an inline function
// and in a template, both used from two translation units (tmpl.cc and
// tmpl2.cc), with the probes' arguments of other types than declared.
extern "C++" {
#include "dp.h"
}

struct thing;

template <typename T> inline void fire(T v)
{
	DP_OBJ(&v, v);
}

inline void inl(int i)
{
	DP_REQ("inline", i);
}

void tmpl2(int i);

#ifdef TMPL_MAIN
void tmpl(int i)
{
	fire<long>(i);
	inl(i);
}

int main()
{
	tmpl(1);
	tmpl2(2);
	return 0;
}
#else
void tmpl2(int i)
{
	fire<long>(i);
	inl(i);
}
#endif
