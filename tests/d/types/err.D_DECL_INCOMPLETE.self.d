struct s { struct s in; };
