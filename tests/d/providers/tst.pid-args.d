/*
 * The pid provider on a real process (triggers/tr-calls): each call's
 * arguments as the C source passed them, in call order, signed and
 * unsigned views of a negative int argument.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	printf("%s(%d, %d, %d) %d\n", probefunc, (int)arg0, (int)arg1,
	    (long)arg2, (uint32_t)arg1 == 0xffffffff);
}

pid$target:a.out:tr_int:return
{
	printf("%s returned %d\n", probefunc, arg1);
}
