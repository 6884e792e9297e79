/* A plugin's provider: the library is dlopen()ed while traced. */
provider trplug {
	probe hello(char *, int);
};
