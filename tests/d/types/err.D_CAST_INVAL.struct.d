struct s { int a; };
BEGIN { trace((struct s)arg0); }
