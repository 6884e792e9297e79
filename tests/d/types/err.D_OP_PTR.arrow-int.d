BEGIN { trace(arg0->a); }
