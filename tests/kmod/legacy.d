/* A provider used the classic way (tests/kmod/legacy.c). */
provider lg {
	probe fire(int);
};
