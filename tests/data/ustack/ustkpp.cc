// SPDX-License-Identifier: MIT
/*
 * ustkpp.cc - run-ustack.sh's C++ program: a method of a class in a
 * namespace fires ustk:::fire, so its frame reads demangled.
 */
#include "ustk.h"

namespace shop {
struct Cart {
	int items;
	void checkout(int n);
};

__attribute__((noinline)) void Cart::checkout(int n)
{
	USTK_FIRE(n, nullptr, nullptr);
	items += n;
}
} // namespace shop

int main()
{
	shop::Cart cart{0};

	cart.checkout(3);
	return cart.items == 3 ? 0 : 1;
}
