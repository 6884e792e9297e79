provider actstr {
	probe req(int, char *);
	probe name(int, string);
};
