/*
 * stream_tp.h — LTTng-UST 2.13 tracepoint provider `vigilstream` for
 * tick.c's VARIANT_LTTNG build: the same two events per call as
 * `vigil-cc --vigil-trace=tick` records, with the same payload (one 64-bit
 * word: the argument on entry, the result on return).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER vigilstream

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "stream_tp.h"

#if !defined(VIGIL_STREAM_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define VIGIL_STREAM_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(vigilstream, tick_entry,
    LTTNG_UST_TP_ARGS(long, i),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(long, i, i)))

LTTNG_UST_TRACEPOINT_EVENT(vigilstream, tick_return,
    LTTNG_UST_TP_ARGS(long, ret),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(long, ret, ret)))

#endif /* VIGIL_STREAM_TP_H */

#include <lttng/tracepoint-event.h>
