/* a variable of a struct whose members are not declared */
struct s;
struct s x;
