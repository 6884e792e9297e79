BEGIN { ustack(0); }
