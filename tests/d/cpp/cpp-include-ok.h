/* a header of #defines for err.cpp-after-include.d */
#define LIMIT 3
