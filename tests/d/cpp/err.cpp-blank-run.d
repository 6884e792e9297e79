/* cpp folds a run of blank lines into a line marker: the line after it
 * keeps its number */
BEGIN
{
	trace(1);










	nosuchfunc(2);
}
