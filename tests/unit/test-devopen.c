// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * znp_dev_open() classification against a fake sysfs, using harmless real
 * char devices (/dev/null, /dev/zero, ...) dressed up as NVMe nodes: the
 * error classes of dev.h, and that a controller node is refused before
 * any command could be sent.
 */
#include <ctype.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "znp.h"
#include "faketree.h"
#include "test.h"

static struct znp_env env;

/* sys/dev/char/M:m of real device @dev -> fake device dir @dir (relative to sys/). */
static void dress(const char *dev, const char *dir)
{
	char rel[300], target[300];
	struct stat st;

	if (stat(dev, &st)) {
		perror(dev);
		exit(1);
	}
	snprintf(rel, sizeof(rel), "sys/dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	snprintf(target, sizeof(target), "../../%s", dir);
	ft_link(rel, target);
}

static void check_why(const char *why)
{
	CHECK(why != NULL, "no reason given");
	if (!why)
		return;
	/* one line, starts lower case (acronyms like NVMe may follow), no full stop */
	CHECK(!strchr(why, '\n') && !isupper((unsigned char)why[0]) &&
	      why[strlen(why) - 1] != '.', "reason style: \"%s\"", why);
	CHECK(!strstr(why, "/dev/"), "reason names a device: %s", why);
}

static int try_open(const char *path, unsigned int flags, struct znp_dev **dev, const char **why)
{
	*why = NULL;
	*dev = NULL;
	return znp_dev_open(&env, path, flags, dev, why);
}

static void test_not_devices(void)
{
	struct znp_dev *dev;
	const char *why;

	CHECK_INT(try_open(ft_path("missing"), 0, &dev, &why), -ENOENT);
	check_why(why);
	ft_write("regular", "x");
	CHECK_INT(try_open(ft_path("regular"), 0, &dev, &why), -ENOTBLK);
	check_why(why);
	CHECK_INT(try_open(ft_root, 0, &dev, &why), -ENOTBLK);
	check_why(why);
	CHECK(dev == NULL, "dev set on failure");
	CHECK_INT(znp_dev_open(&env, NULL, 0, &dev, &why), -EINVAL);
}

static void test_char_classes(void)
{
	struct znp_dev *dev;
	const char *why;

	/* no sysfs entry for the char device */
	CHECK_INT(try_open("/dev/null", 0, &dev, &why), -ENODEV);
	check_why(why);

	/* a char device of another class (mem) */
	ft_dir("sys/devices/virtual/mem/null");
	ft_link("sys/devices/virtual/mem/null/subsystem", "../../../../class/mem");
	dress("/dev/null", "devices/virtual/mem/null");
	CHECK_INT(try_open("/dev/null", 0, &dev, &why), -ENODEV);
	CHECK_STR(why, "not an NVMe namespace or zoned block device");

	/* NVMe controller node, by subsystem */
	ft_dir("sys/devices/nvme/nvme0");
	ft_link("sys/devices/nvme/nvme0/subsystem", "../../../class/nvme");
	dress("/dev/zero", "devices/nvme/nvme0");
	CHECK_INT(try_open("/dev/zero", ZNP_OPEN_WRITE, &dev, &why), -EISDIR);
	CHECK_STR(why, "is an NVMe controller node; use a namespace node (ngXnY)");

	/* controller node without a subsystem link: plain dir, name from uevent */
	{
		struct stat st;
		char rel[64];

		stat("/dev/full", &st);
		snprintf(rel, sizeof(rel), "sys/dev/char/%u:%u/uevent", major(st.st_rdev),
			 minor(st.st_rdev));
		ft_write(rel, "MAJOR=1\nMINOR=7\nDEVNAME=nvme3");
		CHECK_INT(try_open("/dev/full", 0, &dev, &why), -EISDIR);
	}
}

static void test_ng_node(void)
{
	struct znp_dev *dev;
	const char *why;
	int ret;

	/* /dev/random as ng1n1 of controller nvme1, hidden disk nvme1n1 (NSID 4) */
	ft_dir("sys/devices/nvme/nvme1/ng1n1");
	ft_link("sys/devices/nvme/nvme1/ng1n1/subsystem", "../../../../class/nvme-generic");
	ft_link("sys/devices/nvme/nvme1/ng1n1/device", "..");
	ft_link("sys/class/nvme-generic/ng1n1", "../../devices/nvme/nvme1/ng1n1");
	ft_link("sys/class/nvme/nvme1", "../../devices/nvme/nvme1");
	ft_write("sys/devices/nvme/nvme1/nvme1n1/nsid", "4");
	ft_write("sys/devices/nvme/nvme1/nvme1n1/hidden", "1");
	ft_write("sys/devices/nvme/nvme1/serial", "S1");
	ft_link("sys/block/nvme1n1", "../devices/nvme/nvme1/nvme1n1");
	dress("/dev/random", "devices/nvme/nvme1/ng1n1");

	ret = try_open("/dev/random", 0, &dev, &why);
	CHECK(ret == 0, "open as ng node: %d (%s)", ret, why ? why : "-");
	if (ret)
		return;
	CHECK_INT(dev->kind, ZNP_DEV_NVME_CHAR);
	CHECK(znp_dev_is_nvme(dev), "ng node is NVMe");
	CHECK_STR(dev->name, "ng1n1");
	CHECK_STR(dev->ns.ctrl, "nvme1");
	CHECK_STR(dev->ns.blk_name, "nvme1n1");
	CHECK(!dev->ns.blk_visible, "hidden disk visible");
	/* NVME_IOCTL_ID fails on /dev/random: the sysfs NSID stays */
	CHECK_INT(dev->ns.nsid, 4);
	CHECK_STR(dev->ns.serial, "S1");
	/* Identify is an ioctl /dev/random rejects: a -errno, not a status */
	ret = znp_dev_probe(dev);
	CHECK(ret < 0, "probe of a non-NVMe fd returned %d", ret);
	znp_dev_close(dev);

	/* same node without any NSID source */
	ft_dir("sys/devices/nvme/nvme1/ng1n7");
	ft_link("sys/devices/nvme/nvme1/ng1n7/subsystem", "../../../../class/nvme-generic");
	dress("/dev/urandom", "devices/nvme/nvme1/ng1n7");
	CHECK_INT(try_open("/dev/urandom", 0, &dev, &why), -ENODEV);
	CHECK_STR(why, "cannot read the namespace ID");
}

int main(void)
{
	char sys[300];

	ft_init();
	snprintf(sys, sizeof(sys), "%s/sys", ft_root);
	env.sysfs_root = sys;
	env.dev_root = ft_root;
	test_not_devices();
	test_char_classes();
	test_ng_node();
	znp_dev_close(NULL);
	ft_cleanup();
	return t_done("test-devopen");
}
