/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The aio room's public face: the io_uring command engine (async.h),
 * discard targets, range lists, validation and planning (discard.h), and
 * the zone-management engine (zone-mgmt.h).
 */
#ifndef ZNP_AIO_H
#define ZNP_AIO_H

#include "async.h"
#include "discard.h"
#include "zone-mgmt.h"

#endif
