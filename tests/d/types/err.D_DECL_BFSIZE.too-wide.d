struct s { int a : 33; };
