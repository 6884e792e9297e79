/* a divisor that is a constant expression of value 0 is refused too */
BEGIN { x = 1; c = x / (4 - 2 * 2); exit(0); }
