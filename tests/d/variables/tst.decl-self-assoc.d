/* A declared thread-local associative array (self TYPE name[keys];), as
 * the per-language flow scripts declare their depth counters: it keeps
 * its declared type (300 in a uint8_t is 44) and reads 0 or "" unset. */
#pragma D option quiet

self int depth[int];
self uint8_t small[int];
self string name[int, string];

BEGIN
{
	self->depth[1]++;
	self->depth[1]++;
	self->small[1] = 300;
	self->name[2, "a"] = "x";
	printf("%d %d %d [%s] [%s]\n", self->depth[1], self->depth[5],
	    self->small[1], self->name[2, "a"], self->name[2, "b"]);
	exit(0);
}
