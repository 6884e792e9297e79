/* curthread is the Solaris kernel's kthread_t: refused with the reason
 * (the DTrace book's sysdispqlen.d reads curthread->t_cpu) */
profile:::profile-97hz
{
	@ = lquantize(curthread->t_cpu->cpu_disp->disp_nrunnable, 0, 64, 1);
}
