provider actl {
	probe fire(long, int);
};
