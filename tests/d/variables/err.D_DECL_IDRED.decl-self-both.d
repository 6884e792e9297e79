/* one self-> name cannot be declared both a scalar and an array */
self int depth;
self int depth[int];
