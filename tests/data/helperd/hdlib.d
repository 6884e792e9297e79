/* The shared library's provider. */
provider hdlib {
	probe call(int);
};
