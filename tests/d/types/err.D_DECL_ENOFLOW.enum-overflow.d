enum e { A = 0x7fffffff, B };
BEGIN { exit(0); }
