struct s { int a : 3; int b; };
BEGIN { trace(offsetof(struct s, a)); }
