/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private: identity of an NVMe namespace from sysfs, pairing the generic
 * char node (ngXnY) with its block node (nvmeXnY, or the multipath head
 * nvmeSnY whose paths are nvmeScXnY).
 */
#ifndef ZNP_NSINFO_H
#define ZNP_NSINFO_H

#include <stdbool.h>

#include "dev.h"

/* Name shapes (kernel instance names, never NSIDs). */
bool znp_name_is_ctrl(const char *name);	/* nvme0 */
bool znp_name_is_ng(const char *name);		/* ng0n1 */
bool znp_name_is_disk(const char *name);	/* nvme0n1 or nvme0c1n1 */
/* Controller instance number of "nvmeN", or -1. */
int znp_ctrl_instance(const char *name);

/**
 * znp_nsinfo_from_ng() - fill @ns (zeroed by the caller) for /dev/@ng
 * Return: 0, or -EINVAL when @ng is not an ngXnY name.
 */
int znp_nsinfo_from_ng(const struct znp_env *env, const char *ng, struct znp_ns_info *ns);
/**
 * znp_nsinfo_from_blk() - fill @ns (zeroed by the caller) for /dev/@blk
 * Return: 0, or -EINVAL when @blk is not an nvmeXnY name.
 */
int znp_nsinfo_from_blk(const struct znp_env *env, const char *blk, struct znp_ns_info *ns);
/*
 * Take the NSID the device reported (NVME_IOCTL_ID); when sysfs paired
 * the node with a namespace of another NSID, drop the other node.
 */
void znp_nsinfo_set_nsid(struct znp_ns_info *ns, uint32_t nsid, bool via_ng);
/*
 * The generic node (kernel name, "ng0n1") of namespace @nsid behind
 * controller @ctrl ("nvme0"): a namespace of the controller, or a multipath
 * head of its subsystem, with that NSID in sysfs.
 * Return: 0, -ENOENT (none), -ENAMETOOLONG.
 */
int znp_nsinfo_ng_of_ctrl(const struct znp_env *env, const char *ctrl, uint32_t nsid,
			  char *ng, size_t len);

#endif
