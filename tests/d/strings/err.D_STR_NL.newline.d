BEGIN { x = "ab
cd"; }
