/* A stand-in for libvigil used by the compiler's end-to-end tests: prints
 * every entry-point call, and the assertion's tables on first sight (which
 * checks that the pass's globals have abi.h's layout). */
#include <stdio.h>
#include <stddef.h>
#include <vigil/abi.h>

/* The layouts the pass emits (see VigilPass.cpp, LLVM struct types
 * vigil.value_desc, vigil.event_desc, vigil.automaton, vigil.assertion). */
_Static_assert(sizeof(struct vigil_value_desc) == 24, "value_desc");
_Static_assert(offsetof(struct vigil_value_desc, kind) == 16, "value_desc");
_Static_assert(sizeof(struct vigil_event_desc) == 48, "event_desc");
_Static_assert(offsetof(struct vigil_event_desc, kind) == 40, "event_desc");
_Static_assert(sizeof(struct vigil_automaton) == 24, "automaton");
_Static_assert(offsetof(struct vigil_automaton, nevents) == 16, "automaton");
_Static_assert(sizeof(struct vigil_assertion) == 48, "assertion");
_Static_assert(offsetof(struct vigil_assertion, id) == 40, "assertion");
_Static_assert(offsetof(struct vigil_assertion, ncaptures) == 47, "assertion");

static void dump(struct vigil_assertion *a) {
  if (a->runtime)
    return;
  a->runtime = a; /* seen */
  printf("assertion id=%u %s \"%s\" locality=%u mode=%u nalts=%u ncaptures=%u\n",
         a->id, a->location, a->text, a->locality, a->mode, a->nalternatives,
         a->ncaptures);
  for (unsigned c = 0; c < a->ncaptures; c++)
    printf("  capture %u: %s\n", c, a->capture_texts[c]);
  for (unsigned i = 0; i < a->nalternatives; i++) {
    const struct vigil_automaton *au = &a->alternatives[i];
    printf("  alt %u \"%s\" nevents=%u site=%u static=%u\n", i, au->text,
           au->nevents, au->site, au->is_static);
    for (unsigned e = 0; e < au->nevents; e++) {
      const struct vigil_event_desc *ev = &au->events[e];
      printf("    ev %u kind=%u fn=%s text=\"%s\" succ=%#llx or=%#llx flags=%#x"
             " nvalues=%u\n",
             e, ev->kind, ev->function ? ev->function : "(null)", ev->text,
             (unsigned long long)ev->successors,
             (unsigned long long)ev->or_block, ev->flags, ev->nvalues);
      for (unsigned v = 0; v < ev->nvalues; v++) {
        const struct vigil_value_desc *vd = &ev->values[v];
        printf("      val %u text=\"%s\" kind=%u ret=%u arg=%u cap=%u const=%#llx\n",
               v, vd->text, vd->kind, vd->is_return, vd->arg_index,
               vd->capture, (unsigned long long)vd->constant);
      }
    }
  }
}

static int aligned(void *p) { return ((unsigned long)p & 63) == 0; }

void __vigil_bound_start(struct vigil_assertion *a, void *instance) {
  dump(a);
  printf("bound_start a=%u aligned=%d\n", a->id, aligned(instance));
}
void __vigil_bound_end(struct vigil_assertion *a, void *instance) {
  dump(a);
  printf("bound_end a=%u\n", a->id);
}
void __vigil_site_reached(struct vigil_assertion *a, void *instance,
                          const uint64_t *captures) {
  dump(a);
  printf("site a=%u captures:", a->id);
  for (unsigned i = 0; i < a->ncaptures; i++)
    printf(" %#llx", (unsigned long long)captures[i]);
  printf("\n");
}
void __vigil_event(struct vigil_assertion *a, void *instance, uint32_t event,
                   const uint64_t *values) {
  dump(a);
  const struct vigil_event_desc *ev =
      &a->alternatives[event >> 8].events[event & 0xff];
  printf("event a=%u alt=%u ev=%u \"%s\" values:", a->id, event >> 8,
         event & 0xff, ev->text);
  for (unsigned i = 0; i < ev->nvalues; i++)
    printf(" %#llx", (unsigned long long)values[i]);
  printf("\n");
}
