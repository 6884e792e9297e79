# PostgreSQL's src/backend/utils/postprocess_dtrace.sed, in substance:
# TRACE_ prefixes on the macros, and const on char * arguments for
# dtrace versions that drop it.
s/POSTGRESQL_/TRACE_POSTGRESQL_/g
s/( *char \*/(const char */g
s/, *char \*/, const char */g
