/* tests/run-trace-fork.sh: fpair's entry and return */
provider pair {
	probe entry(int);
	probe return(int);
};
