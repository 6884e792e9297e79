/* a typedef of a pointer type: arithmetic scales by the pointee */
#pragma D option quiet

typedef int myint;
typedef myint *mip_t;
typedef void *vp_t;
typedef int **ipp_t;
BEGIN
{
	this->p = (mip_t)8;
	this->v = (vp_t)8;
	this->q = (ipp_t)8;
	printf("%d %d %d\n", (uint64_t)(this->p + 1), (uint64_t)(this->v + 1), (uint64_t)(this->q + 1));
	exit(0);
}
