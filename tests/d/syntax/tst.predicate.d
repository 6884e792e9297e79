/* A predicate decides whether the clause runs; it sees what earlier
 * clauses of the same firing stored. */
#pragma D option quiet

BEGIN { x = 3; }
BEGIN /x == 3/ { printf("x == 3\n"); }
BEGIN /x != 3/ { printf("x != 3\n"); }
BEGIN /x > 1 && x < 5/ { printf("1 < x < 5\n"); }
BEGIN /0/ { printf("never\n"); }
BEGIN /"abc" == "abc"/ { printf("strings compare by value\n"); }
BEGIN /"abc" < "abd"/ { printf("and by order\n"); }
BEGIN { exit(0); }
