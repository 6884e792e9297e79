/*
 * uregs[]'s R_* names, Linux DTrace's x86-64 numbers (struct pt_regs'
 * slots), and the i386 and generic names that stand for them.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d %d %d %d %d %d %d %d %d\n", R_R15, R_R14,
	    R_R13, R_R12, R_RBP, R_RBX, R_R11, R_R10, R_R9, R_R8, R_RAX,
	    R_RCX, R_RDX);
	printf("%d %d %d %d %d %d %d %d %d %d %d %d %d\n", R_RSI, R_RDI,
	    R_ERR, R_RIP, R_CS, R_RFL, R_RSP, R_SS, R_DS, R_ES, R_FS, R_GS,
	    R_TRAPNO);
	printf("%d %d %d %d %d %d %d %d %d %d\n", R_EAX, R_EBX, R_ECX, R_EDX,
	    R_ESI, R_EDI, R_EBP, R_ESP, R_EIP, R_EFL);
	printf("%d %d %d %d %d %d\n", R_PC, R_SP, R_FP, R_PS, R_R0, R_R1);
	exit(0);
}
