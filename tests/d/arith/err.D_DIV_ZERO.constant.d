/* a constant divisor of 0 is refused, not a fault at every firing */
BEGIN { c = 123 / 0; exit(0); }
