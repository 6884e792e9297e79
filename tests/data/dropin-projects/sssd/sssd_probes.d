/*
 * A miniature of sssd 2.8's src/systemtap/sssd_probes.d (written for
 * these tests): built with `dtrace -C`, closed with `}` and no `;`.
 */
provider sssd {
    probe sssd_transaction_start(int nesting);
    probe sssd_transaction_commit_before(int nesting);
    probe sdap_search_send(char *base, int scope, char *filter, char **attrs);
    probe dp_req_done(char *name, int target, int method, int ret, char *msg);
}
