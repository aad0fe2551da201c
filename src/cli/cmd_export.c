// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * export: a power-of-2 mapping (dm-po2zone or ublk), found by its name
 * whatever device number it has this boot, as namespace 1 of an NVMe
 * target subsystem on a port (src/map/export.c); `export --remove` takes
 * the subsystem away again; --persist records the export for the unit
 * that makes it at boot (or, with --remove, forgets it). The refusals (a
 * namespace node, a ublk mapping whose server does not serve, no nvmet, an
 * export file that is a symbolic link) are the library's.
 */
#include <string.h>

#include "cmd.h"
#include "cmd_map.h"

#define DEFAULT_TRSVCID	"4420"

static const char *const drain_names[] = {
	[ZNP_MAP_DRAIN_NONE] = "none", [ZNP_MAP_DRAIN_DONE] = "done",
	[ZNP_MAP_DRAIN_TIMEOUT] = "timeout", [ZNP_MAP_DRAIN_UNKNOWN] = "unknown",
};

int znp_cmd_export(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct znp_map_export_req r = {
		.nqn = o->nqn, .transport = o->transport ? o->transport : "tcp",
		.traddr = o->traddr, .trsvcid = o->trsvcid, .hostnqn = o->hostnqn,
	};
	struct znp_map_export_done d;
	struct znp_map_err e = { 0 };
	struct znp_export_view v = { 0 };
	struct znp_map_ctx c;
	bool loop;

	znp_cli_map_ctx(cli, o, &c);
	if (o->remove) {
		if (znp_map_unexport(&c, o->args[0], &d, &e))
			return znp_cli_map_fail(cli, o->args[0], &e);
		v = (struct znp_export_view){ .name = d.name, .device = d.device, .nqn = d.nqn,
					       .port = d.port, .removed = true,
					       .config = d.config_changed ? d.config : NULL,
					       .ana_group = d.ana_group,
					       .drain = d.nqn[0] ? drain_names[d.drain] : NULL,
					       .drain_ms = d.drain_ms };
		p->ops->export(p, &v);
		return ZNP_EXIT_OK;
	}
	loop = !strcmp(r.transport, "loop");
	if (strcmp(r.transport, "tcp") && strcmp(r.transport, "rdma") && !loop) {
		znp_cli_err(cli, r.transport, "not a transport export takes (tcp, rdma, loop)");
		return ZNP_EXIT_USAGE;
	}
	if (loop && (o->traddr || o->trsvcid)) {
		znp_cli_err(cli, "export", "--transport loop takes no --traddr or --trsvcid");
		return ZNP_EXIT_USAGE;
	}
	if (!loop && !o->traddr) {
		znp_cli_err(cli, "export", "missing --traddr (the address the port listens on)");
		return ZNP_EXIT_USAGE;
	}
	if (!loop) {
		r.adrfam = strchr(o->traddr, ':') ? "ipv6" : "ipv4";
		if (!r.trsvcid)
			r.trsvcid = DEFAULT_TRSVCID;
	}
	if (znp_map_export(&c, o->args[0], &r, &d, &e))
		return znp_cli_map_fail(cli, o->args[0], &e);
	v = (struct znp_export_view){
		.name = d.name, .device = d.device, .nqn = d.nqn, .transport = r.transport,
		.traddr = r.traddr, .trsvcid = r.trsvcid, .hostnqn = r.hostnqn, .port = d.port,
		.port_created = d.port_created, .config = d.config_changed ? d.config : NULL,
		.ana_group = d.ana_group,
	};
	p->ops->export(p, &v);
	return ZNP_EXIT_OK;
}
