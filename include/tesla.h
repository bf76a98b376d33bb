/*
 * tesla.h — TESLA-compatible temporal assertions, as implemented by vigil.
 *
 *   #include <tesla.h>            (or <vigil/tesla.h>, the same file)
 *
 *   int vfs_open(struct cred *c, struct file *f) {
 *       TESLA_WITHIN(syscall, previously(mac_check(c, f) == 0));
 *       ...
 *   }
 *
 * Two ways this header compiles:
 *
 *  - With any ordinary compiler (gcc, clang without vigil's plugin) every
 *    assertion expands to ((void)0): nothing is evaluated, nothing is linked,
 *    the program is unchanged.
 *
 *  - Under vigil (the Clang plugin defines __VIGIL__), an assertion expands to
 *    a dead branch holding the assertion expression, so that Clang's semantic
 *    analysis checks every name and type in it (an unknown function or a
 *    variable not in scope at the site is an ordinary compiler error at its
 *    file:line:col), followed by a call to __vigil_site().  The plugin reads
 *    the dead branch, builds the automaton, reports malformed assertions, and
 *    rewrites the __vigil_site() call so that it carries the automaton
 *    description and the values of the variables the assertion captures.
 *    The dead branch is never code-generated: no event function is called.
 *
 * The lower-case event words (call, returnfrom, previously, ...) are macros
 * only under vigil, as in TESLA.  The language is documented in
 * docs/assertion-language.md.
 */
#ifndef VIGIL_TESLA_H
#define VIGIL_TESLA_H

#ifdef __VIGIL__

#ifdef __cplusplus
extern "C" {
#endif

/* Markers.  Declared, never defined: they only appear in dead code, except
 * __vigil_site, which the link-time pass replaces. */
int __vigil_m_within(int, ...);
int __vigil_m_perthread(int, ...);
int __vigil_m_global(int, ...);
int __vigil_m_sequence(int, ...);
int __vigil_m_previously(int, ...);
int __vigil_m_eventually(int, ...);
int __vigil_m_call(int, ...);
int __vigil_m_returnfrom(int, ...);
int __vigil_m_optional(int, ...);
int __vigil_m_caller(int, ...);
int __vigil_m_callee(int, ...);
int __vigil_m_strict(int, ...);
int __vigil_m_conditional(int, ...);
int __vigil_m_guideline(int, ...);
int __vigil_m_site(void);
int __vigil_m_unsupported(const char *what, ...);
void __vigil_site(const char *descriptor, ...);

/* ANY(type): a value that matches anything.  `type` is one of the names
 * below (TESLA's ANY(int), ANY(ptr), ... plus the fixed-width types). */
extern int __vigil_any_int;
extern unsigned int __vigil_any_uint;
extern unsigned int __vigil_any_unsigned;
extern long __vigil_any_long;
extern unsigned long __vigil_any_ulong;
extern long long __vigil_any_llong;
extern unsigned long long __vigil_any_ullong;
extern short __vigil_any_short;
extern char __vigil_any_char;
extern _Bool __vigil_any_bool;
extern void *__vigil_any_ptr;
extern __SIZE_TYPE__ __vigil_any_size_t;
extern __PTRDIFF_TYPE__ __vigil_any_ssize_t;
extern __INTPTR_TYPE__ __vigil_any_intptr_t;
extern __UINTPTR_TYPE__ __vigil_any_uintptr_t;
extern __INT32_TYPE__ __vigil_any_int32_t;
extern __UINT32_TYPE__ __vigil_any_uint32_t;
extern __INT64_TYPE__ __vigil_any_int64_t;
extern __UINT64_TYPE__ __vigil_any_uint64_t;

#ifdef __cplusplus
}
#endif

/* Sixteen placeholder arguments: the plugin overwrites them with the
 * captured values and shrinks the call to the number it needs. */
#define __VIGIL_SITE_PLACEHOLDERS                                              \
  0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL, 0UL

#define __VIGIL_ASSERTION(marker, ...)                                         \
  do {                                                                         \
    if (0) {                                                                   \
      (void)marker(0, __VA_ARGS__);                                            \
    }                                                                          \
    __vigil_site("", __VIGIL_SITE_PLACEHOLDERS);                               \
  } while (0)

/* Bounds and scope. */
#define TESLA_WITHIN(function, ...)                                            \
  __VIGIL_ASSERTION(__vigil_m_within, function, __VA_ARGS__)
#define TESLA_PERTHREAD(start, end, ...)                                       \
  __VIGIL_ASSERTION(__vigil_m_perthread, start, end, __VA_ARGS__)
#define TESLA_GLOBAL(start, end, ...)                                          \
  __VIGIL_ASSERTION(__vigil_m_global, start, end, __VA_ARGS__)

/* Sequences. */
#define TSEQUENCE(...) __vigil_m_sequence(0, __VA_ARGS__)
#define previously(...) __vigil_m_previously(0, __VA_ARGS__)
#define eventually(...) __vigil_m_eventually(0, __VA_ARGS__)
#define TESLA_ASSERTION_SITE __vigil_m_site()

/* Events.  The (void)(e), 0 wrapper lets `e` be a call of a void function
 * or a bare function name. */
#define call(e) __vigil_m_call(0, ((void)(e), 0))
#define returnfrom(e) __vigil_m_returnfrom(0, ((void)(e), 0))
#define optional(...) __vigil_m_optional(0, __VA_ARGS__)
#define caller(...) __vigil_m_caller(0, __VA_ARGS__)
#define callee(...) __vigil_m_callee(0, __VA_ARGS__)
#define ANY(type) __vigil_any_##type

/* Modes. */
#define strict(...) __vigil_m_strict(0, __VA_ARGS__)
#define conditional(...) __vigil_m_conditional(0, __VA_ARGS__)
#define guideline(...) __vigil_m_guideline(0, __VA_ARGS__)

/* TESLA constructs vigil does not support yet: refused by the plugin with a
 * "not supported yet" error rather than silently ignored. */
#define REPEAT(...) __vigil_m_unsupported("REPEAT", __VA_ARGS__)
#define UPTO(...) __vigil_m_unsupported("UPTO", __VA_ARGS__)
#define ATLEAST(...) __vigil_m_unsupported("ATLEAST", __VA_ARGS__)
#define flags(...) __vigil_m_unsupported("flags", __VA_ARGS__)
#define bitmask(...) __vigil_m_unsupported("bitmask", __VA_ARGS__)

#else /* !__VIGIL__ : an ordinary compiler; assertions vanish. */

#define TESLA_WITHIN(function, ...) ((void)0)
#define TESLA_PERTHREAD(start, end, ...) ((void)0)
#define TESLA_GLOBAL(start, end, ...) ((void)0)

#endif /* __VIGIL__ */

#endif /* VIGIL_TESLA_H */
