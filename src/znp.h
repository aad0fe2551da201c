/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zns-npo2 core library: umbrella header. */
#ifndef ZNP_H
#define ZNP_H

#include "check.h"
#include "dev.h"
#include "error.h"
#include "geometry.h"
#include "scan.h"
#include "zone.h"

#endif
