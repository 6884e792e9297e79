/* Options of DTrace's reference that cannot apply here are accepted,
 * each with one warning; zdefs lets a description match nothing. */
#pragma D option quiet
#pragma D option cpu=0
#pragma D option dynvarsize=4m
#pragma D option jstackstrsize=2048
#pragma D option jstackframes=50
#pragma D option dynvarsize=8m
#pragma D option zdefs
#pragma D option maxframes=10
#pragma D option temporal
#pragma D option rawbytes

nosuchprovider:::nosuchprobe { trace(1); }
BEGIN { printf("ran\n"); exit(0); }
