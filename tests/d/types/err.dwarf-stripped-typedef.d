/*
 * A typedef name cast to an integer, with triggers/tr-nodebug traced:
 * the message names the type not found and the program without debug
 * information.
 */
pid$target:a.out:tr_pair:entry
{
	trace((tr_id_t)arg0);
}
