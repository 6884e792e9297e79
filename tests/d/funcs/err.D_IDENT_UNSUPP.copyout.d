/* copyout() writes the traced process's memory: DTrace does it before
 * the probe returns; here the clause runs after the hit, and the BPF
 * program can write at the hit only bytes it has there (a literal, or
 * what it reads at an argument's address: tests/run-copyout.sh), so
 * copyout() of a buffer the clause builds (alloca(), bcopy()) is
 * refused, with or without -w, rather than done late, where no -c or -p
 * process can be held at the probe while the clause runs. */
BEGIN { copyout(alloca(1), 0, 1); exit(0); }
