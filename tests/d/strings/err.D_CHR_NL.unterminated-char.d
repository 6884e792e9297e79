BEGIN { x = 'ab; }
