BEGIN { trace((char int)0); exit(0); }
