/* tests/run-trace-fork.sh: the probe every process of fsrv fires */
provider srv {
	probe req(int);
};
