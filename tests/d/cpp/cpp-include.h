/* a header err.cpp-include.d includes: its fault is named by its own
 * file and line */
BEGIN { nosuchfunc(3); }
