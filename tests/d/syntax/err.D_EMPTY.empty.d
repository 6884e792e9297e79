/* a script of comments and pragmas only would trace nothing until
 * killed */
#pragma D option quiet
