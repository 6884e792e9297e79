// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * kmod_selftest.c - the smallest module the check-kmod harness loads
 * before the real one (helper-driver/kmod/).  It proves the harness's
 * own machinery: that a module built against the installed headers has
 * the vermagic and symbol versions of the kernel the guest boots, that
 * insmod and rmmod work in the initramfs, and that its output reaches
 * the serial log.  A failure here is the harness's, not the helper's.
 *
 * It creates /proc/kmod_selftest, which reads "ok".  With warn=1 it
 * WARNs as it loads: `KMOD_SELFTEST_WARN=1 make check-kmod` must then
 * fail, which shows the harness notices a kernel warning.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

static struct proc_dir_entry *kst_entry;

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "WARN when loading (the harness must fail)");

static int kst_show(struct seq_file *m, void *v)
{
	seq_puts(m, "ok\n");
	return 0;
}

static int __init kst_init(void)
{
	kst_entry = proc_create_single("kmod_selftest", 0444, NULL, kst_show);
	if (!kst_entry)
		return -ENOMEM;
	WARN(warn, "kmod_selftest: warning as asked (warn=1)\n");
	pr_info("kmod_selftest: loaded\n");
	return 0;
}

static void __exit kst_exit(void)
{
	proc_remove(kst_entry);
	pr_info("kmod_selftest: unloaded\n");
}

module_init(kst_init);
module_exit(kst_exit);
MODULE_DESCRIPTION("usdt-sdk check-kmod harness self-test");
MODULE_LICENSE("Dual MIT/GPL");
