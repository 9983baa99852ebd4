/* fs.c: whole-file reads, atomic writes (temporary file + rename; devices
 * and FIFOs written in place), paths. */
#include "cko.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *cko_try_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a folder, not a file", path);
		close(fd);
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *s = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
				goto fail;
			}
			cap *= 2;
			s = xrealloc(s, cap + 1);
		}
		ssize_t r = read(fd, s + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
		goto fail;
	}
	if (fd)
		close(fd);
	s[n] = 0;
	if (len)
		*len = n;
	return s;
fail:
	if (fd)
		close(fd);
	free(s);
	return NULL;
}

char *cko_read_file(const char *path, size_t max, size_t *len)
{
	char err[512];
	char *s = cko_try_read_file(path, max, len, err, sizeof err);
	if (!s)
		cko_die(CKO_BADINPUT, "%s", err);
	return s;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

void cko_write_file(const char *path, const void *data, size_t len) { cko_write_file2(path, data, len, NULL, 0); }

/* A target that is not a regular file (a device such as /dev/null, a FIFO,
 * /dev/stdout's link to one) is written through, never replaced by rename:
 * as root that would turn /dev/null into a regular file. A symlink to a
 * regular file is replaced itself, so nothing outside its folder changes.
 * Returns 1 when the write was done here, 0 for the ordinary rename path. */
static int write_in_place(const char *path, const void *data, size_t len, const void *data2, size_t len2)
{
	struct stat lst, st;
	if (lstat(path, &lst))
		return 0;
	if (S_ISLNK(lst.st_mode) && stat(path, &st))
		return 0; /* a dangling link: replaced like a file */
	if (!S_ISLNK(lst.st_mode))
		st = lst;
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode))
		cko_die(CKO_BADINPUT, "%s: is a folder, not a file", path);
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (S_ISLNK(lst.st_mode) ? 0 : O_NOFOLLOW));
	if (fd < 0)
		cko_die(CKO_ENV, "%s: %s", path, strerror(errno));
	if (write_all(fd, data, len) || (len2 && write_all(fd, data2, len2))) {
		int e = errno;
		close(fd);
		cko_die(CKO_ENV, "%s: %s", path, strerror(e));
	}
	close(fd);
	return 1;
}

/* Whether s is "PID.N" (both decimal) with PID a process that is gone. */
static int dead_tmp_suffix(const char *s)
{
	char *end;
	errno = 0;
	long pid = strtol(s, &end, 10);
	if (end == s || *end != '.' || pid <= 0 || errno)
		return 0;
	const char *n = end + 1;
	if (!*n || strspn(n, "0123456789") != strlen(n))
		return 0;
	return pid != (long)getpid() && kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Removes PATH.tmp.PID.N left by a writer of PATH that died (kill -9, a
 * crash): only those names, only in PATH's folder, only for dead PIDs. */
static void remove_stale_tmps(const char *path)
{
	char *dir = cko_dirname(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *prefix = xasprintf("%s.tmp.", base);
	size_t pl = strlen(prefix);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, prefix, pl) || !dead_tmp_suffix(e->d_name + pl))
			continue;
		char *f = cko_path_join(dir, e->d_name);
		struct stat st;
		if (!lstat(f, &st) && S_ISREG(st.st_mode))
			unlink(f);
		free(f);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(dir);
}

void cko_write_file2(const char *path, const void *data, size_t len, const void *data2, size_t len2)
{
	if (!strcmp(path, "-")) {
		if (write_all(1, data, len) || (len2 && write_all(1, data2, len2)))
			cko_die(CKO_ENV, "stdout: %s", strerror(errno));
		return;
	}
	if (write_in_place(path, data, len, data2, len2))
		return;
	remove_stale_tmps(path);
	static unsigned counter;
	char *tmp = xasprintf("%s.tmp.%ld.%u", path, (long)getpid(), counter++);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {
		char *d = cko_dirname(path);
		cko_mkdir_p(d);
		free(d);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		cko_die(CKO_ENV, "%s: %s", tmp, strerror(errno));
	if (write_all(fd, data, len) || (len2 && write_all(fd, data2, len2)) || close(fd)) {
		int e = errno;
		unlink(tmp);
		cko_die(CKO_ENV, "%s: %s", path, strerror(e));
	}
	if (rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		cko_die(CKO_ENV, "%s: %s", path, strerror(e));
	}
	free(tmp);
}

int cko_write_if_changed(const char *path, const void *data, size_t len)
{
	char err[256];
	size_t n;
	char *old = cko_try_read_file(path, len + 1, &n, err, sizeof err);
	int same = old && n == len && memcmp(old, data, len) == 0;
	free(old);
	if (same) {
		remove_stale_tmps(path); /* as a write would */
		return 0;
	}
	cko_write_file(path, data, len);
	return 1;
}

void cko_copy_file(const char *from, const char *to)
{
	size_t n;
	char *s = cko_read_file(from, 64u << 20, &n);
	cko_write_file(to, s, n);
	free(s);
}

void cko_mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			cko_die(CKO_ENV, "%s: %s", p, strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		cko_die(CKO_ENV, "%s: %s", p, strerror(errno));
	free(p);
}

char *cko_shell_quote(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
	if (*s && strspn(s, safe) == strlen(s))
		return xstrdup(s);
	cko_buf b = {0};
	buf_puts(&b, "'");
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_add(&b, p, 1);
	buf_puts(&b, "'");
	return b.s;
}

void cko_out_check(const char *path)
{
	if (!path || !*path || !strcmp(path, "-"))
		return;
	char *p = xstrdup(path);
	for (size_t n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = 0; /* a folder named as "dir/" */
	char *d = cko_dirname(p);
	free(p);
	if (!cko_exists(d)) {
		char *q = cko_shell_quote(d);
		cko_die(CKO_BADINPUT, "%s: folder %s does not exist: create it first (mkdir -p %s) or write elsewhere",
			path, d, q);
	}
	if (!cko_is_dir(d))
		cko_die(CKO_BADINPUT, "%s: %s is not a folder", path, d);
	free(d);
}

int cko_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

cJSON *cko_file_stamp(const char *path)
{
	struct stat st;
	cJSON *o = cJSON_CreateObject();
	if (stat(path, &st) == 0) {
		cJSON_AddNumberToObject(o, "bytes", (double)st.st_size);
		/* as a string: nanoseconds since 1970 do not fit a double */
		char ns[32];
		snprintf(ns, sizeof ns, "%lld%09ld", (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
		cJSON_AddStringToObject(o, "mtime_ns", ns);
	}
	return o;
}

int cko_file_stamp_matches(const cJSON *stamp, const char *path)
{
	cJSON *now = cko_file_stamp(path);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(stamp, "bytes"), *b = cJSON_GetObjectItemCaseSensitive(now, "bytes");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(stamp, "mtime_ns"),
		    *d = cJSON_GetObjectItemCaseSensitive(now, "mtime_ns");
	int same = cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble && cJSON_IsString(c) &&
		   cJSON_IsString(d) && !strcmp(c->valuestring, d->valuestring);
	cJSON_Delete(now);
	return same;
}

int cko_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *cko_dirname(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return strndup(path, (size_t)(s - path));
}

char *cko_path_join(const char *base_dir, const char *rel)
{
	if (rel[0] == '/' || !base_dir || !*base_dir || !strcmp(base_dir, "."))
		return xstrdup(rel);
	size_t n = strlen(base_dir);
	return xasprintf("%s%s%s", base_dir, base_dir[n - 1] == '/' ? "" : "/", rel);
}

/* Splits an absolute, lexically normalized path into components. */
static int split_abs(const char *path, char ***out)
{
	char *abs;
	if (path[0] == '/') {
		abs = xstrdup(path);
	} else {
		char cwd[4096];
		if (!getcwd(cwd, sizeof cwd))
			cko_die(CKO_ENV, "getcwd: %s", strerror(errno));
		abs = xasprintf("%s/%s", cwd, path);
	}
	char **v = xcalloc(strlen(abs) + 1, sizeof *v);
	int n = 0;
	for (char *save, *t = strtok_r(abs, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..")) {
			if (n)
				free(v[--n]);
			continue;
		}
		v[n++] = xstrdup(t);
	}
	free(abs);
	*out = v;
	return n;
}

char *cko_path_relative(const char *from_dir, const char *target)
{
	char **a, **b;
	int na = split_abs(from_dir, &a), nb = split_abs(target, &b);
	int c = 0;
	while (c < na && c < nb && !strcmp(a[c], b[c]))
		c++;
	cko_buf r = {0};
	for (int i = c; i < na; i++)
		buf_puts(&r, r.len ? "/.." : "..");
	for (int i = c; i < nb; i++) {
		if (r.len)
			buf_puts(&r, "/");
		buf_puts(&r, b[i]);
	}
	if (!r.len)
		buf_puts(&r, ".");
	cko_free_list(a, na);
	cko_free_list(b, nb);
	return r.s;
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

char **cko_list_dir(const char *dir, const char *suffix, int *n)
{
	DIR *d = opendir(dir);
	*n = 0;
	if (!d)
		return NULL;
	int cap = 16;
	char **v = xmalloc(cap * sizeof *v);
	size_t sl = strlen(suffix);
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < sl || strcmp(e->d_name + l - sl, suffix))
			continue;
		if (strstr(e->d_name, ".tmp."))
			continue;
		if (*n == cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(v, (size_t)*n, sizeof *v, cmp_str);
	return v;
}

void cko_free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

double cko_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Whether path is this very program (the same file, through links too). */
static int is_self(const char *path)
{
	struct stat a, b;
	return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

char *cko_exe_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	return cko_dirname(exe);
}

/* The first entry of path (colon-separated) whose name passes ok: that
 * file, and the entry in *dir when dir is not NULL; NULL if none. */
static char *path_find(const char *path, const char *name, int (*ok)(const char *), char **dir)
{
	char *p = xstrdup(path);
	for (char *save, *d = strtok_r(p, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *d ? d : ".", name);
		if (ok(f)) {
			if (dir)
				*dir = xstrdup(*d ? d : ".");
			free(p);
			return f;
		}
		free(f);
	}
	free(p);
	return NULL;
}

char *cko_self_dir(void)
{
	const char *a0 = cko_argv0();
	if (a0 && strchr(a0, '/'))
		return cko_dirname(a0);
	const char *path = getenv("PATH");
	if (a0 && *a0 && path) {
		/* A name found on PATH by whoever started us: the first entry
		 * that holds this program is the folder it came from. */
		char *d, *f = path_find(path, a0, is_self, &d);
		if (f) {
			free(f);
			return d;
		}
	}
	return cko_exe_dir();
}

static int executable(const char *f)
{
	return !access(f, X_OK);
}

char *cko_which(const char *name)
{
	const char *path = getenv("PATH");
	return path_find(path ? path : "/usr/bin:/bin", name, executable, NULL);
}

char *cko_share_dir(const char *probe)
{
	char *bin = cko_exe_dir();
	if (!bin)
		return NULL;
	/* bin/ of the source tree, an installed tree's bin/, build/san/bin */
	char *top = cko_dirname(bin), *found = NULL;
	char *inst = xasprintf("%s/share/cko", top);
	char *up = cko_dirname(top), *up2 = cko_dirname(up);
	char *const dirs[] = {top, inst, up, up2};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs && !found; i++) {
		char *f = cko_path_join(dirs[i], probe);
		if (cko_exists(f))
			found = xstrdup(dirs[i]);
		free(f);
	}
	free(up2);
	free(up);
	free(inst);
	free(top);
	free(bin);
	return found;
}

static char *beside(const char *dir, const char *name)
{
	if (!dir)
		return NULL;
	char *f = xasprintf("%s/%s", dir, name);
	if (!access(f, X_OK))
		return f;
	free(f);
	return NULL;
}

char *cko_tool_path(const char *name)
{
	if (strncmp(name, "cko-", 4) || strchr(name, '/'))
		return xstrdup(name);
	char *d = cko_self_dir(), *f = beside(d, name);
	free(d);
	if (!f) {
		d = cko_exe_dir();
		f = beside(d, name);
		free(d);
	}
	return f ? f : xstrdup(name);
}
