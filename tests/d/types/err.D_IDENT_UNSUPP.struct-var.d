struct s { int a; };
struct s *p;
