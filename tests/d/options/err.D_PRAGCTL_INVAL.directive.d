#frobnicate
BEGIN { exit(0); }
