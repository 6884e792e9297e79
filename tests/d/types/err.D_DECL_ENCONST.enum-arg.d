enum e { A = arg0 };
BEGIN { exit(0); }
