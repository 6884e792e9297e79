BEGIN { printa(@nosuch); }
