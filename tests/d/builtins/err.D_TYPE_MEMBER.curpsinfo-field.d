/* psinfo_t has no member pr_name (pr_fname is the name). */
BEGIN { trace(curpsinfo->pr_name); }
