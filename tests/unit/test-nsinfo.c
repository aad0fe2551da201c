// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Namespace identity from a fake sysfs: ng <-> block pairing, hidden
 * block devices, multipath names, NSIDs never taken from instance names.
 */
#include "nsinfo.h"
#include "sysfs.h"
#include "faketree.h"
#include "test.h"

#define CTRL0_REL "devices/pci0000:00/0000:00:04.0/nvme/nvme0"
#define CTRL0 "sys/" CTRL0_REL

/*
 * nvme0 (non-multipath): ng0n1 + hidden nvme0n1 with NSID 3 (instance 1 is
 * not NSID 1), ng0n2 + visible nvme0n2 NSID 1, ng0n3 without a disk.
 * nvme-subsys2 (multipath, controllers nvme4 and nvme5): head ng2n1 +
 * head disk nvme2n1 (NSID 9), path disks nvme2c4n1, nvme2c5n1.
 */
static void build(void)
{
	ft_write(CTRL0 "/serial", "SN0001    ");
	ft_write(CTRL0 "/model", "QEMU NVMe Ctrl");
	ft_write(CTRL0 "/firmware_rev", "7.2.0");
	ft_link("sys/class/nvme/nvme0", "../../" CTRL0_REL);

	ft_dir(CTRL0 "/ng0n1");
	ft_link(CTRL0 "/ng0n1/device", "../../nvme0");
	ft_link("sys/class/nvme-generic/ng0n1", "../../" CTRL0_REL "/ng0n1");
	ft_write(CTRL0 "/nvme0n1/nsid", "3");
	ft_write(CTRL0 "/nvme0n1/hidden", "1");
	ft_link("sys/block/nvme0n1", "../" CTRL0_REL "/nvme0n1");

	ft_dir(CTRL0 "/ng0n2");
	ft_link(CTRL0 "/ng0n2/device", "../../nvme0");
	ft_link("sys/class/nvme-generic/ng0n2", "../../" CTRL0_REL "/ng0n2");
	ft_write(CTRL0 "/nvme0n2/nsid", "1");
	ft_write(CTRL0 "/nvme0n2/hidden", "0");
	ft_link(CTRL0 "/nvme0n2/device", "../../nvme0");
	ft_link("sys/block/nvme0n2", "../" CTRL0_REL "/nvme0n2");

	ft_dir(CTRL0 "/ng0n3");
	ft_link("sys/class/nvme-generic/ng0n3", "../../" CTRL0_REL "/ng0n3");

	/* multipath */
	ft_write("sys/devices/virtual/nvme-subsystem/nvme-subsys2/ng2n1/dev", "242:9");
	ft_link("sys/devices/virtual/nvme-subsystem/nvme-subsys2/ng2n1/device", "../../nvme-subsys2");
	ft_link("sys/class/nvme-generic/ng2n1",
		"../../devices/virtual/nvme-subsystem/nvme-subsys2/ng2n1");
	ft_write("sys/devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1/nsid", "9");
	ft_link("sys/block/nvme2n1", "../devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1");
	ft_dir("sys/devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1/multipath");
	ft_link("sys/devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1/multipath/nvme2c5n1", "x");
	ft_link("sys/devices/virtual/nvme-subsystem/nvme-subsys2/nvme2n1/multipath/nvme2c4n1", "x");
	ft_write("sys/devices/nvme4/nvme2c4n1/nsid", "9");
	ft_write("sys/devices/nvme4/nvme2c4n1/hidden", "1");
	ft_link("sys/class/nvme/nvme4", "../../devices/nvme4");
	ft_write("sys/devices/nvme4/serial", "MP0004");

	/*
	 * multipath=Y, namespace not shared: controller nvme7 in subsystem 6,
	 * generic node ng7n2 (controller instance), disk nvme6n2 (subsystem
	 * instance), NSID 5.
	 */
	ft_link("sys/class/nvme/nvme7", "../../devices/nvme7");
	ft_dir("sys/devices/nvme7/ng7n2");
	ft_link("sys/devices/nvme7/ng7n2/device", "..");
	ft_link("sys/class/nvme-generic/ng7n2", "../../devices/nvme7/ng7n2");
	ft_write("sys/devices/nvme7/nvme6n2/nsid", "5");
	ft_link("sys/devices/nvme7/nvme6n2/device", "..");
	ft_link("sys/block/nvme6n2", "../devices/nvme7/nvme6n2");
}

static void test_names(void)
{
	CHECK(znp_name_is_ctrl("nvme0"), "nvme0");
	CHECK(znp_name_is_ctrl("nvme12"), "nvme12");
	CHECK(!znp_name_is_ctrl("nvme0n1"), "nvme0n1 is not a controller");
	CHECK(!znp_name_is_ctrl("nvme-subsys0"), "nvme-subsys0");
	CHECK(!znp_name_is_ctrl("nvme"), "nvme");
	CHECK(znp_name_is_ng("ng0n1"), "ng0n1");
	CHECK(znp_name_is_ng("ng10n23"), "ng10n23");
	CHECK(!znp_name_is_ng("ng0"), "ng0");
	CHECK(!znp_name_is_ng("ng0n1p1"), "ng0n1p1");
	CHECK(!znp_name_is_ng("ng-1n1"), "ng-1n1");
	CHECK(znp_name_is_disk("nvme0n1"), "nvme0n1");
	CHECK(znp_name_is_disk("nvme2c4n1"), "nvme2c4n1");
	CHECK(!znp_name_is_disk("nvme0n1p2"), "partition");
	CHECK(!znp_name_is_disk("nvme0"), "controller");
	CHECK(!znp_name_is_disk("dm-0"), "dm-0");
	CHECK_INT(znp_ctrl_instance("nvme7"), 7);
	CHECK_INT(znp_ctrl_instance("nvme99999999999"), -1);
	CHECK_INT(znp_ctrl_instance(""), -1);
}

static void test_pairing(const struct znp_env *env)
{
	struct znp_ns_info ns;

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "ng0n1", &ns), 0);
	CHECK_STR(ns.ctrl, "nvme0");
	CHECK_STR(ns.ng_name, "ng0n1");
	CHECK_STR(ns.blk_name, "nvme0n1");
	CHECK(!ns.blk_visible, "hidden disk reported visible");
	CHECK_INT(ns.nsid, 3);
	CHECK_STR(ns.serial, "SN0001");
	CHECK_STR(ns.model, "QEMU NVMe Ctrl");
	CHECK_STR(ns.firmware, "7.2.0");

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "ng0n2", &ns), 0);
	CHECK_STR(ns.blk_name, "nvme0n2");
	CHECK(ns.blk_visible, "visible disk reported hidden");
	CHECK_INT(ns.nsid, 1);

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "ng0n3", &ns), 0);
	CHECK_STR(ns.ctrl, "nvme0");	/* no device link: from the name */
	CHECK_STR(ns.blk_name, "");
	CHECK(!ns.blk_visible, "no disk, not visible");
	CHECK_INT(ns.nsid, 0);		/* unknown until NVME_IOCTL_ID */

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_blk(env, "nvme0n2", &ns), 0);
	CHECK_STR(ns.ctrl, "nvme0");
	CHECK_STR(ns.ng_name, "ng0n2");
	CHECK_INT(ns.nsid, 1);

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "nvme0n1", &ns), -EINVAL);
	CHECK_INT(znp_nsinfo_from_blk(env, "ng0n1", &ns), -EINVAL);
	CHECK_INT(znp_nsinfo_from_blk(env, "nvme2c4n1", &ns), -EINVAL);
}

static void test_multipath(const struct znp_env *env)
{
	struct znp_ns_info ns;

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "ng2n1", &ns), 0);
	CHECK_STR(ns.blk_name, "nvme2n1");
	CHECK(ns.blk_visible, "head disk without hidden attr is visible");
	CHECK_STR(ns.ctrl, "nvme4");	/* lowest path controller */
	CHECK_INT(ns.nsid, 9);
	CHECK_STR(ns.serial, "MP0004");

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_blk(env, "nvme2n1", &ns), 0);
	CHECK_STR(ns.ctrl, "nvme4");
	CHECK_STR(ns.ng_name, "ng2n1");
	CHECK_INT(ns.nsid, 9);
}

static void test_subsys_instance(const struct znp_env *env)
{
	struct znp_ns_info ns;

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "ng7n2", &ns), 0);
	CHECK_STR(ns.ctrl, "nvme7");
	CHECK_STR(ns.blk_name, "nvme6n2");
	CHECK(ns.blk_visible, "nvme6n2 visible");
	CHECK_INT(ns.nsid, 5);

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_blk(env, "nvme6n2", &ns), 0);
	CHECK_STR(ns.ctrl, "nvme7");
	CHECK_STR(ns.ng_name, "ng7n2");
	CHECK_INT(ns.nsid, 5);
}

/* A head's paths, as the kernel shows them while a controller resets or goes away. */
static void test_path_state(const struct znp_env *env)
{
	struct znp_ns_info ns;

	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "ng7n2", &ns), 0);
	CHECK(!ns.mpath, "ng7n2 is a controller's node, not a head's");
	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_blk(env, "nvme6n2", &ns), 0);
	CHECK(!ns.mpath, "nvme6n2 is a controller's disk, not a head's");
	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_blk(env, "nvme2n1", &ns), 0);
	CHECK(ns.mpath, "nvme2n1 is a head");
	memset(&ns, 0, sizeof(ns));
	CHECK_INT(znp_nsinfo_from_ng(env, "ng2n1", &ns), 0);
	CHECK(ns.mpath, "ng2n1 is a head's node");

	/* the subsystem's controllers: nvme4 with its path disk, nvme5 without yet */
	ft_link("sys/class/nvme-subsystem/nvme-subsys2",
		"../../devices/virtual/nvme-subsystem/nvme-subsys2");
	ft_link("sys/devices/virtual/nvme-subsystem/nvme-subsys2/nvme4", "../../../nvme4");
	ft_link("sys/devices/virtual/nvme-subsystem/nvme-subsys2/nvme5", "../../../nvme5");
	ft_link("sys/class/nvme/nvme5", "../../devices/nvme5");
	ft_write("sys/devices/nvme5/state", "live");
	/* no path controller with a readable state: nothing to wait for */
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_GONE);
	ft_write("sys/devices/nvme4/state", "resetting");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_COMING);
	ft_write("sys/devices/nvme4/state", "connecting");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_COMING);
	ft_write("sys/devices/nvme4/state", "live");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_LIVE);
	ft_write("sys/devices/nvme4/state", "deleting");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_GONE);
	/* nvme5 gets its path disk (another head's disk is not one) */
	ft_write("sys/devices/nvme5/nvme2c5n2/nsid", "10");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_GONE);
	ft_write("sys/devices/nvme5/nvme2c5n1/nsid", "9");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_LIVE);
	ft_write("sys/devices/nvme5/state", "dead");
	ft_write("sys/devices/nvme4/state", "resetting");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_COMING);
	/* a head of another subsystem, and no generic node */
	strcpy(ns.ng_name, "ng3n1");
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_GONE);
	ns.ng_name[0] = '\0';
	CHECK_INT(znp_ns_path_state(env, &ns), ZNP_NS_PATH_GONE);
}

static void test_set_nsid(void)
{
	struct znp_ns_info ns = { .nsid = 3, .blk_visible = true };

	strcpy(ns.ng_name, "ng0n1");
	strcpy(ns.blk_name, "nvme0n1");
	znp_nsinfo_set_nsid(&ns, 3, true);
	CHECK_STR(ns.blk_name, "nvme0n1");
	znp_nsinfo_set_nsid(&ns, 4, true);	/* sysfs paired the wrong disk */
	CHECK_STR(ns.blk_name, "");
	CHECK(!ns.blk_visible, "dropped pairing still visible");
	CHECK_INT(ns.nsid, 4);
	strcpy(ns.blk_name, "nvme0n1");
	znp_nsinfo_set_nsid(&ns, 5, false);
	CHECK_STR(ns.ng_name, "");
	CHECK_STR(ns.blk_name, "nvme0n1");
}

/* sysfs numbers are decimal: octal, hex, signs and junk are refused. */
static void test_attr_u64(void)
{
	static const struct { const char *text; int ret; uint64_t v; } c[] = {
		{ "4096\n", 0, 4096 }, { "0", 0, 0 }, { "010", 0, 10 },
		{ "0x10", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "+5", -EINVAL, 0 },
		{ " 7", -EINVAL, 0 }, { "12abc", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "18446744073709551616", -EINVAL, 0 },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		v = 99;
		ft_write("num", c[i].text);
		CHECK_INT(znp_attr_read_u64(ft_path("num"), &v), c[i].ret);
		if (!c[i].ret)
			CHECK_U64(v, c[i].v);
	}
}

int main(void)
{
	struct znp_env env;
	char sys[300];

	ft_init();
	build();
	snprintf(sys, sizeof(sys), "%s/sys", ft_root);
	env.sysfs_root = sys;
	env.dev_root = ft_root;
	test_names();
	test_pairing(&env);
	test_multipath(&env);
	test_subsys_instance(&env);
	test_path_state(&env);
	test_set_nsid();
	test_attr_u64();
	ft_cleanup();
	return t_done("test-nsinfo");
}
