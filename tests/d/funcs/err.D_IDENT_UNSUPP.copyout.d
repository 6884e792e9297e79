/* copyout() writes the traced process's memory: DTrace does it before
 * the probe returns; here the clause runs after the hit, and only
 * copyoutstr() of a string literal can be written by the BPF program at
 * the hit (tests/run-copyout.sh), so copyout() is refused, with or
 * without -w, rather than done late. */
BEGIN { copyout(alloca(1), 0, 1); exit(0); }
