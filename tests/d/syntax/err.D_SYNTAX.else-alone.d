BEGIN { else x = 1; }
