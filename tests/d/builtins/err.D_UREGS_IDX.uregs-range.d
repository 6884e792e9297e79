/* uregs[26]: no register has that number (R_TRAPNO is 25). */
BEGIN { trace(uregs[26]); }
