/* jstackframes, as ustackframes: 1 to 1000 frames */
#pragma D option jstackframes=0
BEGIN { exit(0); }
