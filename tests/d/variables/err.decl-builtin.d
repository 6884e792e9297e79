/* A global may not take the name of a built-in variable. */
int pid;
