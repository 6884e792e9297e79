/*
 * uregs[] at real hits of triggers/tr-calls: the registers when the
 * probe fired.  At tr_int's entry the SysV ABI puts the arguments in
 * rdi, rsi and rdx (arg0..arg2 as the pid provider reads them), R_PC is
 * the function's first instruction, and rsp + 8 is 16-byte aligned (the
 * call pushed the return address); at its return rax holds the value
 * returned (arg1).  The i386 and generic names read the same registers.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
{
	printf("%d %d %d %A\n", (int)uregs[R_RDI], (int)uregs[R_RSI],
	    uregs[R_RDX], uregs[R_PC]);
	printf("%d %d %d %d %d\n", uregs[R_RDI] == arg0, uregs[R_SP] % 16,
	    uregs[R_PC] == uregs[R_RIP], uregs[R_EAX] == uregs[R_R0],
	    uregs[R_SP] == uregs[R_RSP]);
}

pid$target:a.out:tr_int:return
{
	printf("ret %d %d\n", (long)uregs[R_RAX], uregs[R_RAX] == arg1);
}
