BEGIN { s = speculation(); speculate(s); @a = count(); }
