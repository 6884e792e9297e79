BEGIN { s = speculation(); trace(1); speculate(s); }
