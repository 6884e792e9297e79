/* read before anything assigns it, in program order */
BEGIN { trace(y); exit(0); }
END { y = 1; }
