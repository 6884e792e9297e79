/*
 * D's typeless 0 clears any variable, a string one too (issue 25:
 * `self->file = 0` after a string was refused); a cleared or never-set
 * string reads "", an integer 0.
 */
#pragma D option quiet

BEGIN
{
	self->file = "main.c";
	this->s = "clause";
	g = "global";
	a["k"] = "element";
	self->t["k"] = "thread";
	printf("[%s] [%s] [%s] [%s] [%s]\n", self->file, this->s, g, a["k"],
	    self->t["k"]);
	self->file = 0;
	this->s = 0;
	g = 0;
	a["k"] = 0;
	self->t["k"] = 0;
	printf("[%s] [%s] [%s] [%s] [%s]\n", self->file, this->s, g, a["k"],
	    self->t["k"]);
	printf("%d %d %d\n", self->file == 0, g == NULL, strlen(a["k"]));
	self->file = "again";
	printf("[%s]\n", self->file);
	exit(0);
}
