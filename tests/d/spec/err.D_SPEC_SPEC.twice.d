BEGIN { s = speculation(); speculate(s); speculate(s); }
