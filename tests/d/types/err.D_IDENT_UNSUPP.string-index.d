BEGIN { x = "abc"; trace((x)[1]); }
