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
 * only under vigil, as in TESLA; <tesla-macros.h> (TESLA's header name)
 * includes this file, defines them for ordinary compilers too, and adds
 * named automata (automaton(name, ...) { ...; tesla_done; }).  Struct
 * automata (TESLA_STRUCT_AUTOMATON) and TESLA_ASSERT are defined here.  The
 * language is documented in docs/assertion-language.md.
 */
#ifndef VIGIL_TESLA_H
#define VIGIL_TESLA_H

#ifdef __VIGIL__

#ifdef __cplusplus
extern "C" {
#endif

/* Markers.  Declared, never defined: they only appear in dead code (or in
 * automaton bodies, which the plugin replaces), except __vigil_site, which
 * the link-time pass replaces. */
int __vigil_m_within(int, ...);
int __vigil_m_perthread(int, ...);
int __vigil_m_global(int, ...);
int __vigil_m_assert(int, ...);
int __vigil_m_sequence(int, ...);
int __vigil_m_previously(int, ...);
int __vigil_m_eventually(int, ...);
int __vigil_m_call(int, ...);
int __vigil_m_returnfrom(int, ...);
int __vigil_m_optional(int, ...);
int __vigil_m_repeat(int, ...);
int __vigil_m_caller(int, ...);
int __vigil_m_callee(int, ...);
int __vigil_m_strict(int, ...);
int __vigil_m_conditional(int, ...);
int __vigil_m_guideline(int, ...);
int __vigil_m_struct(int, ...);
int __vigil_m_site(void);
unsigned long long __vigil_m_flags(unsigned long long);
unsigned long long __vigil_m_bitmask(unsigned long long);
void __vigil_site(const char *descriptor, ...);

/* What automaton(name, ...) functions return (never defined). */
struct __vigil_automaton_description;

/* Localities of TESLA_STRUCT_AUTOMATON. */
extern int __vigil_locality_global;
extern int __vigil_locality_perthread;

/* ANY(type): a value that matches anything.  `type` is one of the names
 * below (TESLA's ANY(int), ANY(ptr), ... plus the fixed-width types). */
extern int __vigil_any_int;
extern unsigned int __vigil_any_uint;
extern unsigned int __vigil_any_unsigned;
extern long __vigil_any_long;
extern unsigned long __vigil_any_ulong;
extern long long __vigil_any_llong;
extern long long __vigil_any_longlong;
extern unsigned long long __vigil_any_ullong;
extern short __vigil_any_short;
extern char __vigil_any_char;
extern _Bool __vigil_any_bool;
extern void *__vigil_any_ptr;
extern __SIZE_TYPE__ __vigil_any_size_t;
extern __PTRDIFF_TYPE__ __vigil_any_ssize_t;
extern __PTRDIFF_TYPE__ __vigil_any_register_t;
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

/* Events written as statements of a statement expression (free variables:
 * `({ int x; f(x) == 0; g(x) == 0; })`) are comparisons whose value is
 * unused, and its free variables are never initialised: quiet inside the
 * dead branch only.  (In automaton bodies the plugin drops clang's
 * -Wunused-comparison for a step `f(x) == 0;`.) */
#define __VIGIL_QUIET_BEGIN                                                    \
  _Pragma("clang diagnostic push")                                             \
  _Pragma("clang diagnostic ignored \"-Wunused-comparison\"")                  \
  _Pragma("clang diagnostic ignored \"-Wunused-value\"")                       \
  _Pragma("clang diagnostic ignored \"-Wuninitialized\"")                      \
  _Pragma("clang diagnostic ignored \"-Wsometimes-uninitialized\"")
#define __VIGIL_QUIET_END _Pragma("clang diagnostic pop")

#define __VIGIL_ASSERTION(marker, ...)                                         \
  do {                                                                         \
    __VIGIL_QUIET_BEGIN                                                        \
    if (0) {                                                                   \
      (void)marker(0, __VA_ARGS__);                                            \
    }                                                                          \
    __VIGIL_QUIET_END                                                          \
    __vigil_site("", __VIGIL_SITE_PLACEHOLDERS);                               \
  } while (0)

/* Bounds and scope. */
#define TESLA_WITHIN(function, ...)                                            \
  __VIGIL_ASSERTION(__vigil_m_within, function, __VA_ARGS__)
#define TESLA_PERTHREAD(start, end, ...)                                       \
  __VIGIL_ASSERTION(__vigil_m_perthread, start, end, __VA_ARGS__)
#define TESLA_GLOBAL(start, end, ...)                                          \
  __VIGIL_ASSERTION(__vigil_m_global, start, end, __VA_ARGS__)
/* TESLA_ASSERT(__tesla_global or __tesla_perthread, start, end, expr). */
#define TESLA_ASSERT(locality, start, end, ...)                                \
  __VIGIL_ASSERTION(__vigil_m_assert, locality, start, end, __VA_ARGS__)

/* Sequences. */
#define TSEQUENCE(...) __vigil_m_sequence(0, __VA_ARGS__)
#define previously(...) __vigil_m_previously(0, __VA_ARGS__)
#define eventually(...) __vigil_m_eventually(0, __VA_ARGS__)
#define TESLA_ASSERTION_SITE __vigil_m_site()

/* Events.  The (void)(e), 0 wrapper lets `e` be a call of a void function
 * or a bare function name. */
#define call(e) __vigil_m_call(0, ((void)(e), 0))
#define returnfrom(e) __vigil_m_returnfrom(0, ((void)(e), 0))
#define caller(...) __vigil_m_caller(0, __VA_ARGS__)
#define callee(...) __vigil_m_callee(0, __VA_ARGS__)
#define ANY(type) __vigil_any_##type

/* Repetition: REPEAT(m, n, e...) is e... between m and n times; UPTO and
 * ATLEAST are TESLA's definitions; optional(e...) is REPEAT(0, 1, e...). */
#define ANY_REP __INT_MAX__
#define REPEAT(m, n, ...) __vigil_m_repeat(0, m, n, __VA_ARGS__)
#define UPTO(n, ...) __vigil_m_repeat(0, 1, n, __VA_ARGS__)
#define ATLEAST(n, ...) __vigil_m_repeat(0, n, ANY_REP, __VA_ARGS__)
#define optional(...) __vigil_m_optional(0, __VA_ARGS__)

/* Argument patterns: flags(c) = every bit of c set, bitmask(c) = no bit
 * outside c set. */
#define flags(c) __vigil_m_flags(c)
#define bitmask(c) __vigil_m_bitmask(c)

/* Modes. */
#define strict(...) __vigil_m_strict(0, __VA_ARGS__)
#define conditional(...) __vigil_m_conditional(0, __VA_ARGS__)
#define guideline(...) __vigil_m_guideline(0, __VA_ARGS__)

/* Struct automata: TESLA_STRUCT_AUTOMATON(subject, automaton, locality,
 * start, end) at file scope defines a (used) function whose parameter is
 * the subject; the plugin turns its body into the usage's descriptor. */
#define __tesla_global (&__vigil_locality_global)
#define __tesla_perthread (&__vigil_locality_perthread)
#define __VIGIL_CAT2(a, b) a##b
#define __VIGIL_CAT(a, b) __VIGIL_CAT2(a, b)
#define TESLA_STRUCT_AUTOMATON(subject, automaton, locality, start, end)      \
  static __attribute__((__used__)) void __VIGIL_CAT(                           \
      __vigil_struct_##automaton##_, __COUNTER__)(                             \
      __attribute__((__unused__)) subject) {                                   \
    __VIGIL_QUIET_BEGIN                                                        \
    if (0) {                                                                   \
      (void)__vigil_m_struct(0, automaton, locality, start, end);              \
    }                                                                          \
    __VIGIL_QUIET_END                                                          \
    __vigil_site("", __VIGIL_SITE_PLACEHOLDERS);                               \
  }                                                                            \
  extern int __vigil_struct_automaton_declared

/* Named automata (TESLA's explicit automata): see <tesla-macros.h>, which
 * defines automaton(name, ...) and tesla_done. */
#define __VIGIL_AUTOMATON(name, ...)                                           \
  __attribute__((__used__, __weak__))                                          \
  struct __vigil_automaton_description *name(__VA_ARGS__)
#define __VIGIL_AUTOMATON_DONE                                                 \
  return (__vigil_site("", __VIGIL_SITE_PLACEHOLDERS),                         \
          (struct __vigil_automaton_description *)0)

#else /* !__VIGIL__ : an ordinary compiler; assertions vanish. */

#define TESLA_WITHIN(function, ...) ((void)0)
#define TESLA_PERTHREAD(start, end, ...) ((void)0)
#define TESLA_GLOBAL(start, end, ...) ((void)0)
#define TESLA_ASSERT(locality, start, end, ...) ((void)0)
#define TESLA_STRUCT_AUTOMATON(...)                                            \
  extern int __vigil_struct_automaton_declared

#endif /* __VIGIL__ */

#endif /* VIGIL_TESLA_H */
