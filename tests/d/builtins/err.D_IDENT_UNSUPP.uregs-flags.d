/* A hit records the general registers, R_PC and R_SP: not the flags. */
BEGIN { trace(uregs[R_RFL]); }
