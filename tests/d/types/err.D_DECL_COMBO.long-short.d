BEGIN { trace((long short)0); exit(0); }
