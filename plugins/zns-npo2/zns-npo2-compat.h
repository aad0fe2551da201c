/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between the nvme-cli trees the glue builds into, decided by
 * what the tree provides, never by its version string:
 *
 * - where argconfig.h lives (2.x: top-level util/, 3.x and master: src/);
 * - how commands are registered: the X-macros of cmd.h/define_cmd.h (2.3 to
 *   3.0-rc1: ZNP_NVME_XMACRO_REGISTRATION 1), or plain C, a struct plugin
 *   and struct command objects handed to plugin_add_group() (master, where
 *   define_cmd.h is gone: 0);
 * - 3.x's argconfig parse hook (argconfig_parse() returns -ECANCELED: return
 *   it, do not exit).
 * struct command, struct plugin's name/desc/version and the fields of struct
 * argconfig_commandline_options the glue sets by name are the same in all.
 */
#ifndef ZNS_NPO2_COMPAT_H
#define ZNS_NPO2_COMPAT_H

#if __has_include("util/argconfig.h")
#include "util/argconfig.h"	/* nvme-cli 2.x: top-level tree */
#else
#include "argconfig.h"		/* nvme-cli 3.x: src/ */
#endif

#if __has_include("define_cmd.h")
#define ZNP_NVME_XMACRO_REGISTRATION	1
#else
#define ZNP_NVME_XMACRO_REGISTRATION	0
#endif

/*
 * nvme-cli 3.x: `nvme utils dump-command-metadata` (what its completions are
 * generated from) runs every command with a parse hook that records the
 * options and makes argconfig_parse() return -ECANCELED; the command must
 * then return that value instead of exiting. 2.x never returns it.
 */
#define ZNP_NVME_PARSE_UNWOUND(ret)	((ret) == -ECANCELED)

#endif
