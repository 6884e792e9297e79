/* copyoutstr(): only copyoutstr("string", argN, size) and
 * copyoutstr(copyinstr(argA), argN, size) are written at the hit
 * (tests/run-copyout.sh); to a constant address it is refused, as
 * copyout() of a built buffer is (see err.D_IDENT_UNSUPP.copyout.d) */
BEGIN { copyoutstr("x", 0, 2); exit(0); }
