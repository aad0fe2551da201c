/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by cmd_map.c (map) and cmd_unmap.c (unmap, status). */
#ifndef ZNP_CLI_CMD_MAP_H
#define ZNP_CLI_CMD_MAP_H

#include "cmdtab.h"
#include "opts.h"

/* The mapping file: --config, else ZNP_DMCONF_PATH. */
const char *znp_map_config(const struct znp_opts *o);

/* map --ublk (cmd_map_ublk.c). */
znp_cmd_fn znp_cmd_map_ublk;

#endif
