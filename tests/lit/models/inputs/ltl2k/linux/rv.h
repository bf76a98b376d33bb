/*
 * A user-space stand-in for the few declarations of the kernel's
 * <linux/rv.h> that a header written by `vigil ltl2k` uses: the limits, the
 * per-task monitor and the bit operations.  vigil's own test code, written
 * from the interface the generated header expects; not the kernel's file.
 */
#ifndef VIGIL_TEST_LINUX_RV_H
#define VIGIL_TEST_LINUX_RV_H

#include <limits.h>
#include <stdbool.h>

#define RV_MAX_LTL_ATOM 32
#define RV_MAX_BA_STATES 32

/* The kernel's static_assert takes the message as optional. */
#undef static_assert
#define static_assert(expr) _Static_assert(expr, #expr)

#define VIGIL_BITS_PER_LONG (CHAR_BIT * sizeof(unsigned long))
#define VIGIL_BITMAP_LONGS(bits) (((bits) + VIGIL_BITS_PER_LONG - 1) / VIGIL_BITS_PER_LONG)

struct task_struct;

/* One task's monitor: its set of Büchi states and its atoms. */
struct ltl_monitor {
	unsigned long states[VIGIL_BITMAP_LONGS(RV_MAX_BA_STATES)];
	unsigned long atoms[VIGIL_BITMAP_LONGS(RV_MAX_LTL_ATOM)];
	unsigned long unknown_atoms[VIGIL_BITMAP_LONGS(RV_MAX_LTL_ATOM)];
};

static inline bool test_bit(unsigned int nr, const unsigned long *map)
{
	return (map[nr / VIGIL_BITS_PER_LONG] >> (nr % VIGIL_BITS_PER_LONG)) & 1;
}

static inline void __set_bit(unsigned int nr, unsigned long *map)
{
	map[nr / VIGIL_BITS_PER_LONG] |= 1UL << (nr % VIGIL_BITS_PER_LONG);
}

static inline void __clear_bit(unsigned int nr, unsigned long *map)
{
	map[nr / VIGIL_BITS_PER_LONG] &= ~(1UL << (nr % VIGIL_BITS_PER_LONG));
}

#endif
