// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * loader_util.c: the parts of a vigil libbpf loader that are not about its
 * BPF program (loader_util.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "loader_util.h"

const char *lu_prog_name = "vigil";

void lu_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", lu_prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(LU_EXIT_ERROR);
}

void lu_warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", lu_prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *lu_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		lu_die("out of memory");
	return p;
}

void *lu_xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		lu_die("out of memory");
	return p;
}

char *lu_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		lu_die("out of memory");
	return p;
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first `dir/name` that is a file (and executable if `exec`), over the
 * ':'-separated `dirs`. */
static char *search(const char *dirs, const char *name, bool exec)
{
	char buf[PATH_MAX];

	while (dirs && *dirs) {
		const char *end = strchr(dirs, ':');
		size_t len = end ? (size_t)(end - dirs) : strlen(dirs);

		if (len && len + strlen(name) + 2 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, dirs, name);
			if (is_file(buf) && (!exec || access(buf, X_OK) == 0))
				return realpath(buf, NULL);
		}
		dirs += len + (end ? 1 : 0);
	}
	return NULL;
}

char *lu_find_in_path(const char *name)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return is_file(name) ? realpath(name, NULL) : NULL;
	return search(path ? path : "/usr/bin:/bin", name, true);
}

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#define MULTIARCH ""
#endif

char *lu_find_library(const char *lib)
{
	char *p;

	if (strchr(lib, '/'))
		return is_file(lib) ? realpath(lib, NULL) : NULL;
	p = search(getenv("LD_LIBRARY_PATH"), lib, false);
	if (!p)
		p = search("/lib/" MULTIARCH ":/usr/lib/" MULTIARCH
			   ":/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib",
			   lib, false);
	return p;
}

Elf *lu_elf_begin(const char *path, int *fd)
{
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e)
		close(*fd);
	return e;
}

/* lu_elf_functions over one symbol table section. */
static bool functions_in_symtab(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, lu_elf_function_fn fn,
				void *ctx)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	if (!data || !sh->sh_entsize)
		return false;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Sym sym;
		const char *s;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0)
			continue;
		s = elf_strptr(e, sh->sh_link, sym.st_name);
		if (s && fn(ctx, s, &sym))
			return true;
	}
	return false;
}

bool lu_elf_functions(Elf *e, lu_elf_function_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    functions_in_symtab(e, scn, &sh, fn, ctx))
			return true;
	}
	return false;
}

struct function_query {
	const char *name;
	uint64_t *size;
};

static bool is_function(void *ctx, const char *name, const GElf_Sym *sym)
{
	struct function_query *q = ctx;

	if (strcmp(name, q->name))
		return false;
	*q->size = sym->st_size;
	return true;
}

int lu_elf_function(const char *path, const char *name, uint64_t *size)
{
	struct function_query q = { name, size };
	int fd, ret = LU_ELF_NOT_ELF;
	Elf *e;

	*size = 0;
	e = lu_elf_begin(path, &fd);
	if (!e)
		return LU_ELF_NOT_ELF;
	if (elf_kind(e) == ELF_K_ELF)
		ret = lu_elf_functions(e, is_function, &q) ? LU_ELF_FOUND : LU_ELF_NO_FUNC;
	elf_end(e);
	close(fd);
	return ret;
}

pid_t lu_child_start(char **argv, int *gate)
{
	return lu_child_start_out(argv, gate, -1);
}

pid_t lu_child_start_out(char **argv, int *gate, int out_fd)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		lu_die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		lu_die("fork: %s", strerror(errno));
	if (pid == 0) {
		char c;

		close(fds[1]);
		/* EOF (the loader died before attaching) runs nothing. */
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: error: cannot run %s: %s\n", lu_prog_name, argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*gate = fds[1];
	return pid;
}

void lu_child_release(int *gate)
{
	if (*gate < 0)
		return;
	if (write(*gate, "g", 1) != 1)
		lu_die("cannot start the command: %s", strerror(errno));
	close(*gate);
	*gate = -1;
}

int lu_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return LU_EXIT_ERROR;
}

static char *log_buf;
static size_t log_len, log_cap;
static bool log_debug;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[4096];
	int n;

	if (log_debug)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (log_len + n + 1 > log_cap) {
		log_cap = (log_len + n + 1) * 2;
		log_buf = lu_xrealloc(log_buf, log_cap);
	}
	memcpy(log_buf + log_len, buf, n + 1);
	log_len += n;
	return n;
}

void lu_libbpf_log_init(bool debug)
{
	log_debug = debug;
	libbpf_set_print(libbpf_print);
}

/* The last 40 lines (a verifier log can be long). */
void lu_libbpf_log_print(void)
{
	const char *p;
	int lines = 0;

	if (!log_len)
		return;
	p = log_buf + log_len;
	while (p > log_buf && lines < 40)
		if (*--p == '\n')
			lines++;
	fprintf(stderr, "libbpf says:\n%s", p == log_buf ? p : p + 1);
	if (log_buf[log_len - 1] != '\n')
		fputc('\n', stderr);
}
