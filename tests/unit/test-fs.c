/* test-fs.c: atomic writes leave no temporary file, write_if_changed keeps
 * the modification time of an unchanged file, bounded reads, folder
 * listings and the path helpers. */
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir;

/* Names in d other than . and .., sorted, joined by spaces. */
static char *entries(const char *d)
{
	DIR *h = opendir(d);
	char *names[64];
	int n = 0;
	for (struct dirent *e; h && (e = readdir(h)) && n < 64;)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = xstrdup(e->d_name);
	if (h)
		closedir(h);
	for (int i = 0; i < n; i++) /* tiny insertion sort */
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	cko_buf b = {0};
	buf_puts(&b, "");
	for (int i = 0; i < n; i++) {
		buf_printf(&b, "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
	return b.s;
}

static void atomic(void)
{
	char *d = xasprintf("%s/atomic/deeper", dir);
	char *p = xasprintf("%s/f.txt", d);
	cko_write_file(p, "one", 3);
	char *e = entries(d);
	CHECK("write-creates-folders-no-temp", !strcmp(e, "f.txt"));
	free(e);
	for (int i = 0; i < 50; i++)
		cko_write_file(p, "two!", 4);
	e = entries(d);
	size_t len;
	char *s = cko_read_file(p, 100, &len);
	CHECK("write-replaces-no-temp", !strcmp(e, "f.txt") && len == 4 && !memcmp(s, "two!", 4) && s[4] == 0);
	free(s);
	free(e);
	cko_write_file(p, "", 0);
	s = cko_read_file(p, 100, &len);
	CHECK("write-empty", len == 0 && s[0] == 0);
	free(s);
	struct stat st;
	mode_t mask = umask(0);
	umask(mask);
	CHECK("write-mode-0644", stat(p, &st) == 0 && (st.st_mode & 0777) == (0644 & ~mask));
	free(p);
	free(d);
}

static time_t mtime(const char *p)
{
	struct stat st;
	return stat(p, &st) ? (time_t)-1 : st.st_mtime;
}

static void set_old(const char *p)
{
	struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
	utimensat(AT_FDCWD, p, ts, 0);
}

static void if_changed(void)
{
	char *p = xasprintf("%s/ifc/prompt.txt", dir);
	CHECK("ifc-missing-writes", cko_write_if_changed(p, "hello", 5) == 1);
	set_old(p);
	CHECK("ifc-same-keeps-mtime", cko_write_if_changed(p, "hello", 5) == 0 && mtime(p) == 1000000000);
	CHECK("ifc-longer-writes", cko_write_if_changed(p, "hello!", 6) == 1 && mtime(p) != 1000000000);
	set_old(p);
	CHECK("ifc-shorter-writes", cko_write_if_changed(p, "hell", 4) == 1 && mtime(p) != 1000000000);
	set_old(p);
	CHECK("ifc-same-length-differs", cko_write_if_changed(p, "helo", 4) == 1);
	size_t len;
	char *s = cko_read_file(p, 100, &len);
	CHECK("ifc-content", len == 4 && !memcmp(s, "helo", 4));
	free(s);
	set_old(p);
	CHECK("ifc-empty-vs-content", cko_write_if_changed(p, "", 0) == 1);
	set_old(p);
	CHECK("ifc-empty-same", cko_write_if_changed(p, "", 0) == 0 && mtime(p) == 1000000000);
	char *d = xasprintf("%s/ifc", dir), *e = entries(d);
	CHECK("ifc-no-temp", !strcmp(e, "prompt.txt"));
	free(e);
	free(d);
	free(p);
}

static void reading(void)
{
	char *p = xasprintf("%s/r.bin", dir);
	char *big = xmalloc(10000);
	memset(big, 'x', 10000);
	cko_write_file(p, big, 10000);
	char err[512];
	size_t len = 0;
	char *s = cko_try_read_file(p, 10000, &len, err, sizeof err);
	CHECK("read-exactly-max", s && len == 10000 && s[10000] == 0);
	free(s);
	s = cko_try_read_file(p, 9999, &len, err, sizeof err);
	CHECK("read-over-max", !s && strstr(err, "larger than 9999") && strstr(err, p));
	s = cko_try_read_file(p, 4096, &len, err, sizeof err);
	CHECK("read-over-max-4096", !s && strstr(err, "larger than"));
	s = cko_try_read_file(p, 10, &len, err, sizeof err);
	CHECK("read-over-small-max", !s && strstr(err, "larger than 10"));
	s = cko_try_read_file(dir, 100, &len, err, sizeof err);
	CHECK("read-folder", !s && strstr(err, "is a folder"));
	char *m = xasprintf("%s/nope", dir);
	s = cko_try_read_file(m, 100, &len, err, sizeof err);
	CHECK("read-missing", !s && strstr(err, m) && strstr(err, "No such file"));
	free(m);
	free(big);
	free(p);
}

static void listing(void)
{
	char *d = xasprintf("%s/list", dir);
	static const char *const files[] = {"b.json", "a.json", "c.txt", ".hidden.json", "x.json.tmp.123.0", "a.json.x"};
	for (int i = 0; i < 6; i++) {
		char *p = xasprintf("%s/%s", d, files[i]);
		cko_write_file(p, "1", 1);
		free(p);
	}
	int n;
	char **v = cko_list_dir(d, ".json", &n);
	CHECK("list-dir-sorted-filtered", n == 2 && !strcmp(v[0], "a.json") && !strcmp(v[1], "b.json"));
	cko_free_list(v, n);
	v = cko_list_dir(d, "", &n);
	CHECK("list-dir-all", n == 4 && !strcmp(v[0], "a.json") && !strcmp(v[3], "c.txt"));
	cko_free_list(v, n);
	char *m = xasprintf("%s/none", dir);
	v = cko_list_dir(m, "", &n);
	CHECK("list-dir-missing", v == NULL && n == 0);
	free(m);
	char *deep = xasprintf("%s/x/y/z/", d);
	cko_mkdir_p(deep);
	cko_mkdir_p(deep); /* again: fine */
	CHECK("mkdir-p", cko_is_dir(deep) && cko_exists(deep) && !cko_is_dir(files[0]));
	char *f = xasprintf("%s/a.json", d);
	CHECK("exists-file", cko_exists(f) && !cko_is_dir(f));
	free(f);
	free(deep);
	free(d);
}

static int rel_is(const char *from, const char *to, const char *want)
{
	char *r = cko_path_relative(from, to);
	int ok = !strcmp(r, want);
	if (!ok)
		printf("# relative(%s, %s) = %s, want %s\n", from, to, r, want);
	free(r);
	return ok;
}

static int str_is(char *got, const char *want)
{
	int ok = !strcmp(got, want);
	if (!ok)
		printf("# got %s, want %s\n", got, want);
	free(got);
	return ok;
}

static void paths(void)
{
	CHECK("relative-child", rel_is("a/b", "a/b/c.txt", "c.txt"));
	CHECK("relative-sibling", rel_is("a/b", "a/c/d", "../c/d"));
	CHECK("relative-same", rel_is("a", "a", "."));
	CHECK("relative-parent", rel_is("/x/y", "/x", ".."));
	CHECK("relative-root", rel_is("/", "/etc/x", "etc/x"));
	CHECK("relative-to-root", rel_is("/a/b", "/", "../.."));
	CHECK("relative-dots", rel_is("a/./b/../b", "a/b/f", "f"));
	CHECK("relative-trailing-slash", rel_is("a/b/", "a/b//f", "f"));
	CHECK("relative-request-to-cases",
	      rel_is("results/run-001/iter-000/c0/requests", "results/run-001/cases/x/in/0", "../../../cases/x/in/0"));
	CHECK("relative-prefix-not-component", rel_is("a/bc", "a/b/f", "../b/f"));
	CHECK("relative-from-dot", rel_is(".", "sub/f", "sub/f"));
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd)) {
		char *abs = xasprintf("%s/k/f", cwd);
		CHECK("relative-mixed", rel_is("k", abs, "f"));
		free(abs);
	}
	CHECK("join-plain", str_is(cko_path_join("dir", "f"), "dir/f"));
	CHECK("join-slash", str_is(cko_path_join("dir/", "f"), "dir/f"));
	CHECK("join-dot", str_is(cko_path_join(".", "f"), "f"));
	CHECK("join-empty", str_is(cko_path_join("", "f"), "f") && str_is(cko_path_join(NULL, "f"), "f"));
	CHECK("join-absolute", str_is(cko_path_join("dir", "/abs/f"), "/abs/f"));
	CHECK("join-parent", str_is(cko_path_join("a/b", "../c"), "a/b/../c"));
	CHECK("dirname", str_is(cko_dirname("a/b/c"), "a/b") && str_is(cko_dirname("c"), ".") &&
				 str_is(cko_dirname("/c"), "/") && str_is(cko_dirname("a/"), "a"));
	double t0 = cko_now(), t1 = cko_now();
	CHECK("now-monotonic", t1 >= t0 && t0 > 0);
}

/* Cutting text never splits a UTF-8 character. */
static void utf8_cut(void)
{
	const char *s = "ab\xc3\xa9\xe2\x82\xac"; /* "ab", e-acute (2 bytes), euro sign (3) */
	size_t n = strlen(s);
	CHECK("utf8-cut-fits", cko_utf8_cut(s, n, 10) == n);
	CHECK("utf8-cut-ascii", cko_utf8_cut(s, n, 2) == 2);
	CHECK("utf8-cut-inside-2", cko_utf8_cut(s, n, 3) == 2);
	CHECK("utf8-cut-after-2", cko_utf8_cut(s, n, 4) == 4);
	CHECK("utf8-cut-inside-3", cko_utf8_cut(s, n, 5) == 4 && cko_utf8_cut(s, n, 6) == 4);
	CHECK("utf8-cut-zero", cko_utf8_cut(s, n, 0) == 0);
}

static void quoting(void)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{"/work/results/run-001", "/work/results/run-001"},
		{"/path with space/run-001", "'/path with space/run-001'"},
		{"it's", "'it'\\''s'"},
		{"", "''"},
		{"a$b`c\"d", "'a$b`c\"d'"},
		{"-x=1,2:3@4%5+6", "-x=1,2:3@4%5+6"},
		{"tab\there", "'tab\there'"},
		{"*.cu", "'*.cu'"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *q = cko_shell_quote(t[i].in);
		char name[64];
		snprintf(name, sizeof name, "fs-shell-quote-%zu", i);
		CHECK(name, !strcmp(q, t[i].out));
		free(q);
	}
}

static void visible(void)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{"plain text, é ü 日本", "plain text, é ü 日本"},
		{"a\033[2Jb", "a\\x1b[2Jb"},
		{"keep\nnew\tlines", "keep\nnew\tlines"},
		{"cr\rbel\adel\177", "cr\\x0dbel\\x07del\\x7f"},
		{"c1 \302\233 csi", "c1 \\u009b csi"},
		{"bad \377 \300\200 byte", "bad \\xff \\xc0\\x80 byte"},
		{"cut \342\202", "cut \\xe2\\x82"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *v = cko_text_visible(t[i].in);
		char name[64];
		snprintf(name, sizeof name, "fs-visible-%zu", i);
		CHECK(name, !strcmp(v, t[i].out));
		if (strcmp(v, t[i].out))
			printf("# got '%s'\n", v);
		free(v);
	}
}

/* cko_which searches PATH; cko_share_dir finds the tree this test was
 * built in (build/rel/tests or build/san/tests under it), by a clean path. */
static void finding(void)
{
	char *sh = cko_which("sh");
	CHECK("which-sh", sh && strlen(sh) > 3 && !strcmp(sh + strlen(sh) - 3, "/sh") && !access(sh, X_OK));
	free(sh);
	CHECK("which-none", cko_which("cko-no-such-program") == NULL);
	char *top = cko_share_dir("mk/run.mk");
	char *mk = top ? cko_path_join(top, "mk/run.mk") : NULL;
	CHECK("share-dir", !top || (cko_exists(mk) && !strstr(top, "/..")));
	free(mk);
	free(top);
	CHECK("share-dir-none", cko_share_dir("no/such/probe-file") == NULL);
}

int main(void)
{
	const char *t = getenv("TEST_TMP");
	dir = xstrdup(t && *t ? t : "/tmp/cko-test-fs");
	atomic();
	if_changed();
	reading();
	listing();
	paths();
	utf8_cut();
	quoting();
	visible();
	finding();
	free(dir);
	TEST_END();
}
