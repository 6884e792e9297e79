BEGIN { trace(sizeof(execname)); exit(0); }
