/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared helpers, by topic: bpf_util.h (libbpf set-up, the atomics probe), cli.h (option
 * parsing, usage errors), clock.h (clocks, interval ticks), cmd.h (child commands) and
 * json.h (the JSON writer and string escaping). Include the one you use; this header only
 * gathers them for code that uses several.
 */
#ifndef __BAREATOM_UTIL_H
#define __BAREATOM_UTIL_H

#include "bpf_util.h"
#include "cli.h"
#include "clock.h"
#include "cmd.h"
#include "json.h"

#endif /* __BAREATOM_UTIL_H */
