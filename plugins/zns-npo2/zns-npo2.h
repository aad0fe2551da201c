/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `nvme zns-npo2 <command>`: zoned namespaces whose zone size is not a power
 * of two. The commands, their options and their output come from the
 * zns-npo2 command table (src/cli/cmdtab.c).
 *
 * nvme-cli registers a plugin's commands in one of two ways, chosen by what
 * the tree provides (zns-npo2-compat.h): the X-macros of cmd.h and
 * define_cmd.h (nvme-cli 2.x to 3.0-rc1), which need the ENTRY() list below
 * at compile time (it must name exactly the table's visible commands, with
 * the table's help: tests/docs checks it), or plain C (nvme-cli master),
 * where zns-npo2.c builds the struct command objects from the table itself.
 */
#include "zns-npo2-compat.h"

#define ZNP_NVME_NAME	"zns-npo2"
#define ZNP_NVME_DESC	"Zoned namespaces with non-power-of-2 zone sizes"

#if ZNP_NVME_XMACRO_REGISTRATION
#undef CMD_INC_FILE
#define CMD_INC_FILE plugins/zns-npo2/zns-npo2

#if !defined(ZNS_NPO2_NVME) || defined(CMD_HEADER_MULTI_READ)
#define ZNS_NPO2_NVME

#include "cmd.h"

/* the help texts of the command table (src/cli/cmdtab.c) */
#define ZNP_H_LIST	"list NVMe ZNS namespaces, including those whose block device is hidden"
#define ZNP_H_REPORT	"report zones: start, capacity, write pointer, state, type, attributes"
#define ZNP_H_ZONEMAP	"draw the zones: state and fill of each zone, as text or SVG"
#define ZNP_H_CHECK	"tell whether a namespace can be mapped to power-of-2 zones"
#define ZNP_H_OPEN	"explicitly open zones"
#define ZNP_H_CLOSE	"close zones"
#define ZNP_H_FINISH	"finish zones (move the write pointer to the end: no more writes until a reset)"
#define ZNP_H_RESET	"reset zones (discard their data; destructive)"
#define ZNP_H_OFFLINE	"take zones offline (permanently; destructive)"
#define ZNP_H_DISCARD	"discard byte or LBA ranges, many commands in flight; whole zones of zoned devices are reset (destructive)"
#define ZNP_H_MAP	"map a npo2 zoned namespace to power-of-2 zones (dm-po2zone, or ublk with --ublk)"
#define ZNP_H_UNMAP	"remove a power-of-2 mapping"
#define ZNP_H_EXPORT	"export a power-of-2 mapping through the kernel's NVMe target (NVMe-oF)"
#define ZNP_H_STATUS	"show the power-of-2 mappings made by this tool"

PLUGIN(NAME(ZNP_NVME_NAME, ZNP_NVME_DESC, ZNP_VERSION),
	COMMAND_LIST(
		ENTRY("list", ZNP_H_LIST, znp_nvme_list)
		ENTRY("report", ZNP_H_REPORT, znp_nvme_report)
		ENTRY("zonemap", ZNP_H_ZONEMAP, znp_nvme_zonemap)
		ENTRY("check", ZNP_H_CHECK, znp_nvme_check)
		ENTRY("open", ZNP_H_OPEN, znp_nvme_open)
		ENTRY("close", ZNP_H_CLOSE, znp_nvme_close)
		ENTRY("finish", ZNP_H_FINISH, znp_nvme_finish)
		ENTRY("reset", ZNP_H_RESET, znp_nvme_reset)
		ENTRY("offline", ZNP_H_OFFLINE, znp_nvme_offline)
		ENTRY("discard", ZNP_H_DISCARD, znp_nvme_discard)
		ENTRY("map", ZNP_H_MAP, znp_nvme_map)
		ENTRY("unmap", ZNP_H_UNMAP, znp_nvme_unmap)
		ENTRY("export", ZNP_H_EXPORT, znp_nvme_export)
		ENTRY("status", ZNP_H_STATUS, znp_nvme_status)
	)
);

#endif

#include "define_cmd.h"
#endif
