BEGIN { trace(1); commit(1); }
