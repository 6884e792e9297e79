BEGIN { s = speculation(); speculate(s); exit(0); }
