/*
 * The same arithmetic where the kernel aggregates (bpf backend, d/kplan.c)
 * as in user space (run.c): keys narrowed by their cast, values of int
 * products kept at 64 bits.  tr_int(i, -i, 1000 * i), i = 0..2.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	@s[(int16_t)arg1] = sum((int)arg0 * 1500000000);
	@k[(uint8_t)arg1] = count();
	@w[(int)arg0 << 31] = count();
}
