provider ctrlib {
	probe call(int);
};
