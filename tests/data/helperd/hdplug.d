/* The dlopen'ed plugin's provider. */
provider hdplug {
	probe hello(char *);
};
