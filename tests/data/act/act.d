provider act {
	probe hit(int, long);
	probe tick(int);
};
