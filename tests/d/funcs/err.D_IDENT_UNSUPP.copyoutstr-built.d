/* copyoutstr() of a string the clause computes: the BPF program writes
 * at the hit only bytes it has there (a literal, or what it reads at an
 * argument's address), so strjoin()'s result is refused, even under -w,
 * without a -c or -p process to hold at the probe (tests/run-copyout.sh
 * writes it with one) */
BEGIN { copyoutstr(strjoin("a", "b"), arg0, 3); exit(0); }
