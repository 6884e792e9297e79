/*
 * A thread-local fixed-size array counting a traced process's calls by
 * their argument (triggers/tr-calls 6: tr_int(i, ...) for i 0..5):
 * self->n[arg0 % 3]++ in a clause of its own, which reads nothing else
 * (the generated BPF program does not take it: the array's bytes live
 * in user space), read back in another clause at each call.
 */
#pragma D option quiet

self int n[3];

pid$target:a.out:tr_int:entry
{
	self->n[arg0 % 3]++;
}

pid$target:a.out:tr_str:entry
{
	printf("%d: %d %d %d\n", arg0, self->n[0], self->n[1], self->n[2]);
}
