/* an error in an #include'd file names that file and its line */
#include "cpp-include.h"
