#pragma D option aggzoom=maybe
BEGIN { exit(0); }
