struct s { int a : 3; };
