/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between the nvme-cli versions the glue builds into (2.3, 2.13,
 * 2.16, 3.0): where nvme-cli's headers live, and 3.x's argconfig parse hook.
 * The rest of the plugin API the glue uses (PLUGIN/ENTRY, struct command,
 * argconfig_parse() and the fields of struct argconfig_commandline_options it
 * sets by name) is the same in all of them.
 */
#ifndef ZNS_NPO2_COMPAT_H
#define ZNS_NPO2_COMPAT_H

#if __has_include("util/argconfig.h")
#include "util/argconfig.h"	/* nvme-cli 2.x: top-level tree */
#else
#include "argconfig.h"		/* nvme-cli 3.x: src/ */
#endif

/*
 * nvme-cli 3.x: `nvme utils dump-command-metadata` (what its completions are
 * generated from) runs every command with a parse hook that records the
 * options and makes argconfig_parse() return -ECANCELED; the command must
 * then return that value instead of exiting. 2.x never returns it.
 */
#define ZNP_NVME_PARSE_UNWOUND(ret)	((ret) == -ECANCELED)

#endif
