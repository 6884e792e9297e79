/* The provider of the CMake project (HotSpot's hotspot.d, in small). */
provider jv {
	probe req(char *path, int n);
	probe gc__begin(int full);
};
