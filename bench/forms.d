/* The provider of the probe-forms benchmark (bench/forms.c). */
provider bform {
	probe hit(void *p, int i);
};
