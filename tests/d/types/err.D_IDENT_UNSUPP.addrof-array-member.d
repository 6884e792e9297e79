/*
 * &p->arr is C's pointer to the whole array, which D here cannot type:
 * refused, naming &arr[0], the first element's address.
 */
struct s {
	int arr[4];
};

BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	trace((long)&this->p->arr);
}
