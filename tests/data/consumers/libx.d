/* the probes of libx.so (tests/run-G-consumers.sh) */
provider libx {
	probe lib__call(long, unsigned long, int, unsigned char,
	    const char *, short);
	/* declared, never called */
	probe lib__unused();
};
