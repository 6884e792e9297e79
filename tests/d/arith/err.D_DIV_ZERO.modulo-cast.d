/* modulo, through a cast and a compound assignment */
BEGIN { c = 5 % (int8_t)256; exit(0); }
