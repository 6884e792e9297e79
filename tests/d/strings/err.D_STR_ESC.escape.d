BEGIN { x = "\q"; }
