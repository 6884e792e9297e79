BEGIN { trace(arg0[1]); }
