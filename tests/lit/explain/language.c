// explain=text for the whole TESLA language: a named automaton (steps, XOR,
// repetition), a struct automaton instantiating it, an inline assertion
// referring to it, field assignments, out-parameters, flags/bitmask,
// repetition, nested and repeated events, free variables, TESLA_ASSERT.
// The DFA states are checked by text.c; here the symbols, patterns and
// engines.
// RUN: %clang-vigil -fsyntax-only -Xclang -plugin-arg-vigil -Xclang explain=text %s | FileCheck %s
#include <tesla-macros.h>

struct conn {
  int state;
  int refs;
};
struct pt {
  int x;
};

int syscall(void);
int begin(void);
int end(void);
int get_conn(int idx, struct conn **out);
int open_file(const char *path, int mode);
void conn_init(struct conn *c);
void conn_free(struct conn *c);
void retry(void);
void give_up(void);

automaton(conn_life, struct conn *c) {
  c->state = 1;
  REPEAT(0, 2, c->refs += 1) || (c->state = 2);
  call(conn_free(c));
  tesla_done;
}

TESLA_STRUCT_AUTOMATON(struct conn *c, conn_life, __tesla_perthread,
                       call(conn_init(c)), returnfrom(conn_free(c)));

void use(struct conn *c, struct pt p) {
  TESLA_WITHIN(syscall, previously(get_conn(ANY(int), &c) == 0, c->refs++));
  TESLA_WITHIN(syscall, previously(open_file(ANY(ptr), flags(2)) == 0,
                                   ATLEAST(1, open_file(ANY(ptr), bitmask(7)) == 0)));
  TESLA_WITHIN(syscall, eventually(p.x = 3, c->state = ANY(int), c->refs -= 1));
  TESLA_WITHIN(syscall, strict(TSEQUENCE(call(retry), TESLA_ASSERTION_SITE,
                                         UPTO(2, TSEQUENCE(call(retry), optional(call(give_up)))),
                                         call(retry))));
  TESLA_WITHIN(syscall, previously(({ struct conn *k; get_conn(1, &k) == 0; k->state = 1; })));
  TESLA_ASSERT(__tesla_global, call(begin), returnfrom(end), previously(conn_life(c)));
}

// CHECK:      automaton {{.*}}language.c:28:1
// CHECK-NEXT:   text:     automaton(conn_life, struct conn *c)
// CHECK-NEXT:   name:     conn_life(c)
// CHECK-NEXT:   captures: none
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call)  ""  static
// CHECK-NEXT:     [1] end (at return)  ""  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] field conn.state struct.conn+0:4 of 8 =  "c->state = 1"  static
// CHECK-NEXT:         values: base=param#0(c) value=const:0x1(1)
// CHECK-NEXT:     [4] field conn.refs struct.conn+4:4 of 8 +=  "c->refs += 1"  static
// CHECK-NEXT:         values: base=param#0(c) value=const:0x1(1)
// CHECK-NEXT:     [5] field conn.state struct.conn+0:4 of 8 =  "c->state = 2"  static
// CHECK-NEXT:         values: base=param#0(c) value=const:0x2(2)
// CHECK-NEXT:     [6] call conn_free  "call(conn_free(c))"  static
// CHECK-NEXT:         values: arg0=param#0(c)
// CHECK-NEXT:   alternative 0: conn_life
// CHECK-NEXT:     pattern: c->state = 1, (c->refs += 1{0,2} | c->state = 2), call(conn_free(c))
// CHECK-NEXT:   not compiled here: a definition is compiled where it is used
// CHECK:      struct-automaton {{.*}}language.c:35:1
// CHECK-NEXT:   text:     TESLA_STRUCT_AUTOMATON(struct conn *c, conn_life, __tesla_perthread, call(conn_init(c)), returnfrom(conn_free(c)))
// CHECK-NEXT:   name:     conn_life(c)
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     strict
// CHECK-NEXT:   captures: none
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) conn_init  "call(conn_init(c))"  key
// CHECK-NEXT:         values: arg0=key(c)
// CHECK-NEXT:     [1] end (at return) conn_free  "returnfrom(conn_free(c))"  key
// CHECK-NEXT:         values: arg0=key(c)
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] field conn.state struct.conn+0:4 of 8 =  "c->state = 1"  key
// CHECK-NEXT:         values: base=key(c) value=const:0x1(1)
// CHECK-NEXT:     [4] field conn.refs struct.conn+4:4 of 8 +=  "c->refs += 1"  key
// CHECK-NEXT:         values: base=key(c) value=const:0x1(1)
// CHECK-NEXT:     [5] field conn.state struct.conn+0:4 of 8 =  "c->state = 2"  key
// CHECK-NEXT:         values: base=key(c) value=const:0x2(2)
// CHECK-NEXT:     [6] call conn_free  "call(conn_free(c))"  key
// CHECK-NEXT:         values: arg0=key(c)
// CHECK-NEXT:   alternative 0: conn_life(c)
// CHECK-NEXT:     pattern: SITE, c->state = 1, (c->refs += 1{0,2} | c->state = 2), call(conn_free(c))
// CHECK-NEXT:     engine:  struct automaton (one instance per object, strict)
// CHECK-NEXT:     dfa:     6 states, post-site start s1
// CHECK:      assertion {{.*}}language.c:39:3
// CHECK-NEXT:   text:     TESLA_WITHIN(syscall, previously(get_conn(ANY(int), &c) == 0, c->refs++))
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     guideline
// CHECK-NEXT:   captures: #0=c
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) syscall  "call(syscall)"  static
// CHECK-NEXT:     [1] end (at return) syscall  "returnfrom(syscall)"  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] return get_conn  "get_conn(ANY(int), &c) == 0"  -
// CHECK-NEXT:         values: arg0=any(ANY(int)) arg1*8=capture#0(&c) ret=const:0x0(0)
// CHECK-NEXT:     [4] field conn.refs struct.conn+4:4 of 8 +=  "c->refs++"  -
// CHECK-NEXT:         values: base=capture#0(c) value=const:0x1(1)
// CHECK-NEXT:   alternative 0: previously(get_conn(ANY(int), &c) == 0, c->refs++)
// CHECK-NEXT:     pattern: get_conn(ANY(int), &c) == 0, c->refs++, SITE
// CHECK-NEXT:     engine:  recording (tags store, or history)
// CHECK-NEXT:     dfa:     4 states, post-site start s3
// CHECK:      assertion {{.*}}language.c:40:3
// CHECK-NEXT:   text:     TESLA_WITHIN(syscall, previously(open_file(ANY(ptr), flags(2)) == 0, ATLEAST(1, open_file(ANY(ptr), bitmask(7)) == 0)))
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     guideline
// CHECK-NEXT:   captures: none
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) syscall  "call(syscall)"  static
// CHECK-NEXT:     [1] end (at return) syscall  "returnfrom(syscall)"  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] return open_file  "open_file(ANY(ptr), flags(2)) == 0"  static
// CHECK-NEXT:         values: arg0=any(ANY(ptr)) arg1=flags:0x2(flags(2)) ret=const:0x0(0)
// CHECK-NEXT:     [4] return open_file  "open_file(ANY(ptr), bitmask(7)) == 0"  static
// CHECK-NEXT:         values: arg0=any(ANY(ptr)) arg1=bitmask:0x7(bitmask(7)) ret=const:0x0(0)
// CHECK-NEXT:   alternative 0: previously(open_file(ANY(ptr), flags(2)) == 0, ATLEAST(1, open_file(ANY(ptr), bitmask(7)) == 0))
// CHECK-NEXT:     pattern: open_file(ANY(ptr), flags(2)) == 0, open_file(ANY(ptr), bitmask(7)) == 0{1,}, SITE
// CHECK-NEXT:     engine:  forward, inline fast path
// CHECK-NEXT:     dfa:     4 states, post-site start s3
// CHECK:      assertion {{.*}}language.c:42:3
// CHECK-NEXT:   text:     TESLA_WITHIN(syscall, eventually(p.x = 3, c->state = ANY(int), c->refs -= 1))
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     guideline
// CHECK-NEXT:   captures: #0=&p #1=c
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) syscall  "call(syscall)"  static
// CHECK-NEXT:     [1] end (at return) syscall  "returnfrom(syscall)"  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] field pt.x struct.pt+0:4 of 4 =  "p.x = 3"  -
// CHECK-NEXT:         values: base=capture#0(&p) value=const:0x3(3)
// CHECK-NEXT:     [4] field conn.state struct.conn+0:4 of 8 =  "c->state = ANY(int)"  -
// CHECK-NEXT:         values: base=capture#1(c) value=any(ANY(int))
// CHECK-NEXT:     [5] field conn.refs struct.conn+4:4 of 8 -=  "c->refs -= 1"  -
// CHECK-NEXT:         values: base=capture#1(c) value=const:0x1(1)
// CHECK-NEXT:   alternative 0: eventually(p.x = 3, c->state = ANY(int), c->refs -= 1)
// CHECK-NEXT:     pattern: SITE, p.x = 3, c->state = ANY(int), c->refs -= 1
// CHECK-NEXT:     engine:  forward, inline fast path
// CHECK-NEXT:     dfa:     8 states, post-site start s1
// CHECK:      assertion {{.*}}language.c:43:3
// CHECK-NEXT:   text:     TESLA_WITHIN(syscall, strict(TSEQUENCE(call(retry), TESLA_ASSERTION_SITE, UPTO(2, TSEQUENCE(call(retry), optional(call(give_up)))), call(retry))))
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     strict
// CHECK-NEXT:   captures: none
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) syscall  "call(syscall)"  static
// CHECK-NEXT:     [1] end (at return) syscall  "returnfrom(syscall)"  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] call retry  "call(retry)"  static
// CHECK-NEXT:     [4] call give_up  "call(give_up)"  static
// CHECK-NEXT:   alternative 0: TSEQUENCE(call(retry), TESLA_ASSERTION_SITE, UPTO(2, TSEQUENCE(call(retry), optional(call(give_up)))), call(retry))
// CHECK-NEXT:     pattern: call(retry), SITE, (call(retry), call(give_up)?){1,2}, call(retry)
// CHECK-NEXT:     engine:  forward, inline fast path
// CHECK-NEXT:     dfa:     8 states, post-site start s2
// CHECK:      assertion {{.*}}language.c:46:3
// CHECK-NEXT:   text:     TESLA_WITHIN(syscall, previously(({ struct conn *k; get_conn(1, &k) == 0; k->state = 1; })))
// CHECK-NEXT:   locality: perthread
// CHECK-NEXT:   mode:     guideline
// CHECK-NEXT:   captures: none
// CHECK-NEXT:   free:     #0=k
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) syscall  "call(syscall)"  static
// CHECK-NEXT:     [1] end (at return) syscall  "returnfrom(syscall)"  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] return get_conn  "get_conn(1, &k) == 0"  free
// CHECK-NEXT:         values: arg0=const:0x1(1) arg1*8=free#0(&k) ret=const:0x0(0)
// CHECK-NEXT:     [4] field conn.state struct.conn+0:4 of 8 =  "k->state = 1"  free
// CHECK-NEXT:         values: base=free#0(k) value=const:0x1(1)
// CHECK-NEXT:   alternative 0: previously(({ struct conn *k; get_conn(1, &k) == 0; k->state = 1; }))
// CHECK-NEXT:     pattern: get_conn(1, &k) == 0, k->state = 1, SITE
// CHECK-NEXT:     engine:  free variables (runtime, candidate bindings)
// CHECK-NEXT:     dfa:     4 states, post-site start s3
// CHECK:      assertion {{.*}}language.c:47:3
// CHECK-NEXT:   text:     TESLA_ASSERT(__tesla_global, call(begin), returnfrom(end), previously(conn_life(c)))
// CHECK-NEXT:   locality: global
// CHECK-NEXT:   mode:     guideline
// CHECK-NEXT:   captures: #0=c
// CHECK-NEXT:   free:     none
// CHECK-NEXT:   symbols:
// CHECK-NEXT:     [0] start (at call) begin  "call(begin)"  static
// CHECK-NEXT:     [1] end (at return) end  "returnfrom(end)"  static
// CHECK-NEXT:     [2] site  "TESLA_ASSERTION_SITE"
// CHECK-NEXT:     [3] field conn.state struct.conn+0:4 of 8 =  "c->state = 1"  -
// CHECK-NEXT:         values: base=capture#0(c) value=const:0x1(1)
// CHECK-NEXT:     [4] field conn.refs struct.conn+4:4 of 8 +=  "c->refs += 1"  -
// CHECK-NEXT:         values: base=capture#0(c) value=const:0x1(1)
// CHECK-NEXT:     [5] field conn.state struct.conn+0:4 of 8 =  "c->state = 2"  -
// CHECK-NEXT:         values: base=capture#0(c) value=const:0x2(2)
// CHECK-NEXT:     [6] call conn_free  "call(conn_free(c))"  -
// CHECK-NEXT:         values: arg0=capture#0(c)
// CHECK-NEXT:   alternative 0: previously(conn_life(c))
// CHECK-NEXT:     pattern: c->state = 1, (c->refs += 1{0,2} | c->state = 2), call(conn_free(c)), SITE
// CHECK-NEXT:     engine:  recording (history store)
// CHECK-NEXT:     dfa:     6 states, post-site start s5
