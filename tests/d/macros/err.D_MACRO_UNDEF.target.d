BEGIN { x = $target; }
