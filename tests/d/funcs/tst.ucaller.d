/*
 * ucaller is the return address of the probe's function: at the entry
 * of tr_int, which triggers/tr-calls's main calls 3 times, ufunc() and
 * umod() of it name main and the program.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	@[ufunc(ucaller)] = count();
}

END
{
	printa("%A %@d\n", @);
}
