/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpgen

#if !defined(_TPGEN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TPGEN_TRACE_H

#include <linux/tracepoint.h>
#include "tpgen.h"

/*
 * Bare tracepoints: no trace event, nothing in tracefs. Only BPF can attach
 * to them (raw_tp), as to the scheduler's pelt_*_tp.
 */
DECLARE_TRACE(tpgen_a,
	      TP_PROTO(u64 seq, struct tpgen_ctx *ctx),
	      TP_ARGS(seq, ctx));

DECLARE_TRACE(tpgen_b,
	      TP_PROTO(u64 seq, struct tpgen_ctx *ctx),
	      TP_ARGS(seq, ctx));

/* An ordinary trace event, for comparisons with perf and tracefs. */
TRACE_EVENT(tpgen_event,
	    TP_PROTO(u64 seq),
	    TP_ARGS(seq),
	    TP_STRUCT__entry(__field(u64, seq)),
	    TP_fast_assign(__entry->seq = seq;),
	    TP_printk("seq=%llu", __entry->seq)
);

#endif /* _TPGEN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tpgen_trace
#include <trace/define_trace.h>
