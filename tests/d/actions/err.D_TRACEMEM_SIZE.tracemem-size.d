BEGIN { tracemem(copyin(0, 4), 0); }
