/* an enum type neither the script nor a traced object declares */
enum nosuch x;
BEGIN { exit(0); }
