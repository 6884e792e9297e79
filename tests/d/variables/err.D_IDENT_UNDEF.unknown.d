BEGIN { trace(nosuchvar); }
