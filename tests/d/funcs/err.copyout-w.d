/* copyout() and copyoutstr() write the traced process's memory: a
 * destructive action, refused without -w as DTrace refuses it. */
BEGIN { copyoutstr("x", 0, 2); exit(0); }
