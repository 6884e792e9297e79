/* after an #include, the script's lines are its own again, and the
 * message names no other file */
#include "cpp-include-ok.h"

BEGIN
{
	trace(LIMIT);
	nosuchfunc(4);
}
