/* copyoutstr(): refused as copyout() is (see err.D_IDENT_UNSUPP.copyout.d) */
BEGIN { copyoutstr("x", 0, 2); exit(0); }
