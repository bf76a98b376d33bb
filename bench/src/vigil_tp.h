/*
 * vigil_tp.h — LTTng-UST 2.13 tracepoint provider `vigilbench` for the
 * VARIANT_LTTNG builds: one tracepoint per event function (its arguments as
 * fields), plus bound_enter / site / bound_exit (the captured value i).
 * common.h includes it with LTTNG_UST_TRACEPOINT_DEFINE and
 * LTTNG_UST_TRACEPOINT_CREATE_PROBES, so the probes are linked into the
 * benchmark itself (link with -llttng-ust -ldl).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER vigilbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "vigil_tp.h"

#if !defined(VIGIL_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define VIGIL_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_CLASS(vigilbench, int_event,
    LTTNG_UST_TP_ARGS(int, x),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, x, x)))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callOne,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callTwo,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callThree,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callFour,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callFive,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callSix,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callSeven,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callEight,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callNine,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callVal,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, callKey,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, neverOne,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, neverTwo,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, bound_enter,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, bound_exit,
    LTTNG_UST_TP_ARGS(int, x))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, int_event, vigilbench, site,
    LTTNG_UST_TP_ARGS(int, x))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(vigilbench, args_event,
    LTTNG_UST_TP_ARGS(int, a, void *, p, int, c),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(int, a, a)
        lttng_ust_field_integer_hex(uintptr_t, p, (uintptr_t)p)
        lttng_ust_field_integer(int, c, c)))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, args_event, vigilbench, callArgs,
    LTTNG_UST_TP_ARGS(int, a, void *, p, int, c))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vigilbench, args_event, vigilbench, neverArgs,
    LTTNG_UST_TP_ARGS(int, a, void *, p, int, c))

#endif /* VIGIL_TP_H */

#include <lttng/tracepoint-event.h>
