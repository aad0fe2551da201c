/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `nvme zns-npo2 <command>`: zoned namespaces whose zone size is not a power
 * of two. The commands, their options and their output come from the
 * zns-npo2 command table (src/cli/cmdtab.c); ZNP_NVME_COMMANDS must name
 * exactly the table's visible commands (tests/docs checks it).
 *
 * One list for both ways nvme-cli registers a plugin's commands, chosen by
 * what the tree provides (zns-npo2-compat.h): the X-macros of cmd.h and
 * define_cmd.h (nvme-cli 2.x to 3.0-rc1), which expand the list below through
 * PLUGIN(), or plain C (nvme-cli master: struct command objects registered
 * with plugin_add_group() from a constructor), where zns-npo2.c expands it.
 */
#include "zns-npo2-compat.h"

#ifndef ZNS_NPO2_COMMANDS
#define ZNS_NPO2_COMMANDS

#define ZNP_NVME_NAME	"zns-npo2"
#define ZNP_NVME_DESC	"Zoned namespaces with non-power-of-2 zone sizes"

/* ENTRY(name, help, function) per command */
#define ZNP_NVME_COMMANDS(ENTRY) \
	ENTRY("list", "list NVMe ZNS namespaces, including those whose block device is hidden", znp_nvme_list) \
	ENTRY("report", "report zones: start, capacity, write pointer, state, type, attributes", znp_nvme_report) \
	ENTRY("zonemap", "draw the zones: state and fill of each zone, as text or SVG", znp_nvme_zonemap) \
	ENTRY("check", "tell whether a namespace can be mapped to power-of-2 zones", znp_nvme_check) \
	ENTRY("open", "explicitly open zones", znp_nvme_open) \
	ENTRY("close", "close zones", znp_nvme_close) \
	ENTRY("finish", "finish zones (move the write pointer to the end; destructive)", znp_nvme_finish) \
	ENTRY("reset", "reset zones (discard their data; destructive)", znp_nvme_reset) \
	ENTRY("offline", "take zones offline (permanently; destructive)", znp_nvme_offline) \
	ENTRY("discard", "discard byte or LBA ranges, many commands in flight; whole zones of zoned devices are reset (destructive)", znp_nvme_discard) \
	ENTRY("map", "map a npo2 zoned namespace to power-of-2 zones (dm-po2zone, or ublk with --ublk)", znp_nvme_map) \
	ENTRY("unmap", "remove a power-of-2 mapping", znp_nvme_unmap) \
	ENTRY("status", "show the power-of-2 mappings made by this tool", znp_nvme_status)

#endif

#if ZNP_NVME_XMACRO_REGISTRATION
#undef CMD_INC_FILE
#define CMD_INC_FILE plugins/zns-npo2/zns-npo2

#if !defined(ZNS_NPO2_NVME) || defined(CMD_HEADER_MULTI_READ)
#define ZNS_NPO2_NVME

#include "cmd.h"

PLUGIN(NAME(ZNP_NVME_NAME, ZNP_NVME_DESC, ZNP_VERSION),
	COMMAND_LIST(
		ZNP_NVME_COMMANDS(ENTRY)
	)
);

#endif

#include "define_cmd.h"
#endif
