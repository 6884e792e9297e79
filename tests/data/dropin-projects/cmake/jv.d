/*
 * The provider of the CMake project, shaped like HotSpot's hotspot.d:
 * arguments named by type alone, a probe over several lines with nine
 * arguments (method__compile__end: the last three reach a stub on the
 * stack), `long long`, and the stability pragmas after the provider.
 */

provider jv {
  probe req(char*, int);
  probe gc__begin(uintptr_t);
  probe method__compile__end(
    char*, uintptr_t, char*, uintptr_t, char*, uintptr_t,
    char*, uintptr_t, uintptr_t);
  probe thread__sleep__begin(long long);
};

#pragma D attributes Evolving/Evolving/Common provider jv provider
#pragma D attributes Private/Private/Unknown provider jv module
#pragma D attributes Private/Private/Unknown provider jv function
#pragma D attributes Evolving/Evolving/Common provider jv name
#pragma D attributes Evolving/Evolving/Common provider jv args
