struct s { int a; void v; };
