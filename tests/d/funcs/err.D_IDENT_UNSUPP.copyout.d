/* copyout() writes the traced process's memory: DTrace does it before
 * the probe returns; here the clause runs after the hit, so it is
 * refused, with or without -w, rather than done late. */
BEGIN { copyout(alloca(1), 0, 1); exit(0); }
