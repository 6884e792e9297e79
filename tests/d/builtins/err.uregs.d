BEGIN { trace(uregs[R_PC]); }
