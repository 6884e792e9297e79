BEGIN { this->a[1] = 1; exit(0); }
