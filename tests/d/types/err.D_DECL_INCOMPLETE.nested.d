struct s;
struct t { struct s in; };
