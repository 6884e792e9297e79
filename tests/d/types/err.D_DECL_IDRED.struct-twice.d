struct s { int a; };
struct s { int a; };
