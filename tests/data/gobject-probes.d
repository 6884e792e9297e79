/*
 * The object system's provider of the same library, generated into a
 * second header that one translation unit may include with the first.
 * Written for usdt-sdk's tests.
 */
provider gobject {
	probe type__new(char *, unsigned long, unsigned long);
	probe object__new(void*, unsigned long);
	probe object__ref(void*, unsigned long, unsigned int);
	probe object__finalize(void*, unsigned long);
	probe signal__new(unsigned int, char *, unsigned long);
	probe signal__emit(unsigned int, unsigned int, void *, unsigned long);
	probe closure__invoke(void*, int, void*);
};
