BEGIN { trace(copyin(0, 4)[1]); }
