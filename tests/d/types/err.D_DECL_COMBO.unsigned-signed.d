BEGIN { trace((unsigned signed)0); exit(0); }
