/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zns-npo2 core library: umbrella header. It includes the public header of
 * every room (see src/README.md); nothing outside a room includes any
 * other of its headers.
 */
#ifndef ZNP_H
#define ZNP_H

#include "core.h"	/* core/: return convention, geometry, eligibility */
#include "dev.h"	/* dev/: device open, discovery, block-device facts */
#include "zone.h"	/* zone/: reports, the zone-management engine */
#include "aio.h"	/* aio/: io_uring engine, discard planning */
#include "dm.h"		/* dm/: tables, identity, mapping file, libdevmapper */
#include "ublk.h"	/* ublk/: the ublk server (po2 zoned ublk devices) */
#include "svc.h"	/* svc/: ublk mapping state under /run/zns-npo2 */
#include "map.h"	/* map/: the mapping life cycle, the dm and ublk routes */

#endif
