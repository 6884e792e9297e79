/* The reference scripts' ending: ERROR { exit(1); } stops the run with
 * status 1; END runs; without -q ERROR's firing has its default line. */
BEGIN { x = 0; y = 1 / x; }
ERROR { exit(1); }
END { trace("end"); }
