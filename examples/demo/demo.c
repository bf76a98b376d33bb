/*
 * demo.c — a toy kernel VFS with a mandatory access control (MAC) hook.
 *
 * Every open of a file inside a system call must have been approved by the
 * MAC policy earlier in the *same* system call, with the same credential and
 * the same file, and every file opened during a system call must be
 * released before that system call returns:
 *
 *   TESLA_WITHIN(do_syscall, previously(mac_check(c, f) == 0));
 *   TESLA_WITHIN(do_syscall, eventually(call(file_release(f))));
 *
 * The seeded bug (run with --bug, or DEMO_BUG=1) is an "O_PATH fast path"
 * that skips the MAC check because path-only opens "cannot read data", so an
 * unprivileged user gets a handle on /etc/shadow.  Nothing crashes and the
 * output looks plausible; vigil reports the violated assertion.
 *
 * Build and run:   vigil cc -O1 -g -o demo demo.c && ./demo && ./demo --bug
 * Plain compilers: gcc -I../../include -o demo demo.c   (assertions vanish)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tesla.h>

enum { SYS_OPEN = 5, SYS_OPEN_PATH = 6 };

struct cred {
  int uid;
  const char *label; /* MAC label of the subject */
};

struct file {
  const char *path;
  int owner;         /* uid of the owner */
  int world_read;    /* readable by everybody */
  const char *label; /* MAC label of the object */
  int refcount;
  int opener; /* uid of the last opener */
};

static int bug_enabled;

int mac_check(struct cred *c, struct file *f);
int vfs_open(struct cred *c, struct file *f);
void file_release(struct file *f);
int do_syscall(int nr, struct cred *c, struct file *f);

/* MAC policy: root passes; objects labelled "secret" are readable only by
 * subjects labelled "secret"; otherwise the owner or world-readable. */
int mac_check(struct cred *c, struct file *f) {
  if (c->uid == 0)
    return 0;
  if (strcmp(f->label, "secret") == 0 && strcmp(c->label, "secret") != 0)
    return -13; /* -EACCES */
  if (f->owner == c->uid || f->world_read)
    return 0;
  return -13;
}

int vfs_open(struct cred *c, struct file *f) {
  /* The access decision must have been taken in this system call ... */
  TESLA_WITHIN(do_syscall, previously(mac_check(c, f) == 0));
  /* ... and the reference taken here must be dropped before it returns. */
  TESLA_WITHIN(do_syscall, eventually(call(file_release(f))));
  f->refcount++;
  f->opener = c->uid;
  return 0;
}

void file_release(struct file *f) { f->refcount--; }

/* Read the "contents" of an open file (here: just report it). */
static void vfs_read(struct file *f) {
  printf("    read %s (refcount %d)\n", f->path, f->refcount);
}

/* The system call layer: one entry point for everything, as in a kernel. */
int do_syscall(int nr, struct cred *c, struct file *f) {
  int error;

  switch (nr) {
  case SYS_OPEN:
    error = mac_check(c, f);
    if (error != 0)
      return error;
    error = vfs_open(c, f);
    if (error != 0)
      return error;
    vfs_read(f);
    file_release(f);
    return 0;

  case SYS_OPEN_PATH:
    /* O_PATH: a handle for fstat/openat only, no data is read. */
    if (!bug_enabled) {
      error = mac_check(c, f);
      if (error != 0)
        return error;
    }
    /* BUG (seeded): the fast path above skips the MAC check, so anyone
     * can obtain a handle on any file. */
    error = vfs_open(c, f);
    if (error != 0)
      return error;
    printf("    got a path handle on %s\n", f->path);
    file_release(f);
    return 0;

  default:
    return -38; /* -ENOSYS */
  }
}

int main(int argc, char **argv) {
  const char *env = getenv("DEMO_BUG");
  struct cred alice = {1000, "user"};
  struct file motd = {"/etc/motd", 0, 1, "public", 0, -1};
  struct file notes = {"/home/alice/notes", 1000, 0, "user", 0, -1};
  struct file shadow = {"/etc/shadow", 0, 0, "secret", 0, -1};
  struct {
    int nr;
    struct file *f;
  } work[] = {
      {SYS_OPEN, &motd},      {SYS_OPEN, &notes},      {SYS_OPEN, &shadow},
      {SYS_OPEN_PATH, &motd}, {SYS_OPEN_PATH, &shadow},
  };
  unsigned i;
  int denied = 0;

  /* Line-buffered, so that our output and vigil's reports on stderr
   * interleave in order even through a pipe. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  bug_enabled = (argc > 1 && strcmp(argv[1], "--bug") == 0) ||
                (env != NULL && *env != '\0' && strcmp(env, "0") != 0);
  printf("demo: %s O_PATH fast path\n", bug_enabled ? "buggy" : "correct");

  for (i = 0; i < sizeof work / sizeof work[0]; i++) {
    int rc;
    printf("  uid %d: open(\"%s\"%s)\n", alice.uid, work[i].f->path,
           work[i].nr == SYS_OPEN_PATH ? ", O_PATH" : "");
    rc = do_syscall(work[i].nr, &alice, work[i].f);
    if (rc != 0) {
      printf("    -> denied (%d)\n", rc);
      denied++;
    }
  }
  printf("demo: done, %d request(s) denied\n", denied);
  return 0;
}
