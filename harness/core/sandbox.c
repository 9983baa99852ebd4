/* sandbox.c: Landlock confinement for the steps that handle model-written
 * code. A confined process opens only the files and folders of its rules
 * (Landlock checks every open; what was already open stays usable), makes
 * no TCP connection and, from ABI 6, signals and abstract sockets reach
 * nothing outside its domain. Landlock cannot be loosened once entered, and
 * binds the caller's future children too. docs/sandbox.md has the policy. */
#include "cko.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Rights newer than the installed header may know. */
#define LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs, handled_access_net, scoped;
};

#define FS_READ_FILE LANDLOCK_ACCESS_FS_READ_FILE
#define FS_READ_DIR (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_FILE_RIGHTS                                                                                             \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |               \
	 LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)
/* A folder a tool writes its results into: files and subfolders made,
 * replaced (rename within it) and removed; nothing executed, no devices. */
#define FS_WRITE_DIR                                                                                               \
	(FS_READ_DIR | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_FILE |                            \
	 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR |               \
	 LANDLOCK_ACCESS_FS_REFER | LL_FS_TRUNCATE)
#define FS_DEVICE (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LL_FS_IOCTL_DEV)

static int disabled = -1; /* unknown until asked: --no-sandbox, or CKO_SANDBOX=off from run.mk */

void cko_sandbox_disable(void) { disabled = 1; }
int cko_sandbox_enabled(void)
{
	if (disabled < 0) {
		const char *e = getenv("CKO_SANDBOX");
		disabled = e && !strcmp(e, "off");
	}
	return !disabled;
}

int cko_sandbox_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

const char *cko_sandbox_describe(void)
{
	static char s[64];
	int abi = cko_sandbox_abi();
	if (!cko_sandbox_enabled())
		snprintf(s, sizeof s, "off (--no-sandbox)");
	else if (abi)
		snprintf(s, sizeof s, "landlock ABI %d", abi);
	else
		snprintf(s, sizeof s, "unavailable");
	return s;
}

static void add(cko_sandbox *sb, const char *path, uint64_t access)
{
	if (sb->n == sb->cap) {
		sb->cap = sb->cap ? 2 * sb->cap : 16;
		sb->rules = xrealloc(sb->rules, (size_t)sb->cap * sizeof *sb->rules);
	}
	sb->rules[sb->n].path = xstrdup(path);
	sb->rules[sb->n].access = access;
	sb->n++;
}

void cko_sandbox_read(cko_sandbox *sb, const char *path) { add(sb, path, FS_READ_DIR); }
void cko_sandbox_write(cko_sandbox *sb, const char *path) { add(sb, path, FS_WRITE_DIR); }

void cko_sandbox_write_beside(cko_sandbox *sb, const char *file)
{
	if (!strcmp(file, "-"))
		return;
	char *d = cko_dirname(file);
	cko_mkdir_p(d);
	add(sb, d, FS_WRITE_DIR);
	free(d);
}

/* Whether a profiler's or sanitizer's library is mapped into this process
 * (they inject through CUDA_INJECTION64_PATH or LD_PRELOAD); adds a read
 * rule for each such library's installation (two folders up). */
static int injected(cko_sandbox *sb)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	char line[4096];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		char *p = strchr(line, '/');
		if (!p || !(strstr(p, "nsight") || strstr(p, "sanitizer") || strstr(p, "Injection") ||
			    strstr(p, "injection")))
			continue;
		p[strcspn(p, "\n")] = 0;
		char *d = cko_dirname(p), *up = cko_dirname(d);
		add(sb, up, FS_READ_DIR);
		free(d);
		free(up);
		n++;
	}
	fclose(f);
	return n > 0;
}

const char *cko_cuda_root(void)
{
	const char *e = getenv("CUDA_HOME");
	static char buf[PATH_MAX];
	if (!realpath(e && *e ? e : "/usr/local/cuda", buf))
		snprintf(buf, sizeof buf, "%s", e && *e ? e : "/usr/local/cuda");
	return buf;
}

/* What the CUDA driver and its libraries open after the context exists:
 * its device nodes, its /proc and /sys entries, shared libraries it loads
 * late. Nothing here holds the user's data. */
void cko_sandbox_gpu(cko_sandbox *sb)
{
	static const char *const ro[] = {
		"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/nvidia", "/etc/ld.so.cache",
		"/proc/driver/nvidia", "/proc/self/maps", "/proc/self/status", "/proc/self/fd", "/proc/self/task",
		"/proc/self/cmdline", "/proc/self/auxv", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat",
		"/proc/sys/vm", "/sys/devices", "/sys/bus/pci", "/sys/module/nvidia", "/dev/urandom",
	};
	for (size_t i = 0; i < sizeof ro / sizeof *ro; i++)
		add(sb, ro[i], FS_READ_DIR);
	add(sb, cko_cuda_root(), FS_READ_DIR);
	add(sb, "/dev/null", FS_DEVICE);
	DIR *d = opendir("/dev");
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, "nvidia", 6))
			continue;
		char *p = xasprintf("/dev/%s", e->d_name);
		add(sb, p, FS_DEVICE | FS_READ_DIR);
		free(p);
	}
	if (d)
		closedir(d);
	/* Under ncu or compute-sanitizer, their library injected into this
	 * process keeps locks and scratch files in /dev/shm and the temporary
	 * folder, and reads its own installation. */
	if (injected(sb)) {
		const char *tmp = getenv("TMPDIR");
		add(sb, tmp && *tmp ? tmp : "/tmp", FS_WRITE_DIR);
		add(sb, "/tmp", FS_WRITE_DIR);
		add(sb, "/dev/shm", FS_WRITE_DIR);
		add(sb, "/opt/nvidia", FS_READ_DIR);
	}
	sb->gpu = 1;
}

void cko_sandbox_free(cko_sandbox *sb)
{
	for (int i = 0; i < sb->n; i++)
		free(sb->rules[i].path);
	free(sb->rules);
	memset(sb, 0, sizeof *sb);
}

/* Rights for one rule, within what this ABI handles; a file takes only
 * file rights. Returns 0 to leave the path out (it does not exist). */
static uint64_t rule_access(const char *path, uint64_t want, uint64_t handled, int *fd)
{
	*fd = open(path, O_PATH | O_CLOEXEC);
	if (*fd < 0)
		return 0;
	struct stat st;
	if (fstat(*fd, &st) == 0 && !S_ISDIR(st.st_mode))
		want &= FS_FILE_RIGHTS;
	return want & handled;
}

int cko_sandbox_enter(const cko_sandbox *sb, char *err, size_t errlen)
{
	int abi = cko_sandbox_abi();
	if (!abi) {
		snprintf(err, errlen, "Landlock is not available in this kernel (%s)", strerror(errno));
		return -1;
	}
	uint64_t fs = (1ULL << 13) - 1; /* ABI 1: execute .. make_sym */
	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LL_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LL_FS_IOCTL_DEV;
	struct ll_ruleset_attr attr = {.handled_access_fs = fs};
	size_t attr_size = sizeof attr.handled_access_fs;
	if (abi >= 4 && !sb->gpu) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		attr_size = 2 * sizeof(uint64_t);
	}
	/* The GPU tools leave the network, signals and abstract sockets alone:
	 * profilers and sanitizers inject into them and talk to their front
	 * end that way (the code they run is on the GPU, which opens nothing). */
	if (abi >= 6 && !sb->gpu) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		attr_size = sizeof attr;
	}
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (rs < 0) {
		snprintf(err, errlen, "landlock_create_ruleset: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < sb->n; i++) {
		struct landlock_path_beneath_attr pb;
		int fd;
		pb.allowed_access = rule_access(sb->rules[i].path, sb->rules[i].access, fs, &fd);
		if (fd < 0)
			continue;
		pb.parent_fd = fd;
		int r = pb.allowed_access ? (int)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) : 0;
		int e = errno;
		close(fd);
		if (r) {
			snprintf(err, errlen, "landlock_add_rule %s: %s", sb->rules[i].path, strerror(e));
			close(rs);
			return -1;
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, rs, 0)) {
		snprintf(err, errlen, "landlock_restrict_self: %s", strerror(errno));
		close(rs);
		return -1;
	}
	close(rs);
	return 0;
}

void cko_sandbox_check(void)
{
	if (cko_sandbox_enabled() && !cko_sandbox_abi())
		cko_die(CKO_ENV, "this kernel has no Landlock, which confines model-written code to the files it "
				 "needs; pass --no-sandbox to run such code unconfined");
}

void cko_sandbox_enter_or_die(const cko_sandbox *sb)
{
	if (!cko_sandbox_enabled())
		return;
	char err[512];
	if (cko_sandbox_enter(sb, err, sizeof err))
		cko_die(CKO_ENV, "cannot enter the sandbox: %s; pass --no-sandbox to run model-written code unconfined",
			err);
}

void cko_sandbox_scrub_environ(void)
{
	extern char **environ;
	for (char **e = environ; e && *e; e++) {
		char *eq = strchr(*e, '=');
		/* In place, so /proc/self/environ (this process's copy of the
		 * block) no longer holds the value either. */
		if (eq && cko_env_name_secret(*e))
			memset(eq + 1, 0, strlen(eq + 1));
	}
}

void cko_requests_sandbox(int n, char *const *paths, cko_sandbox *sb)
{
	for (int i = 0; i < n; i++) {
		cko_request rq;
		cko_request_load(paths[i], &rq);
		cko_sandbox_read(sb, rq.file);
		cko_sandbox_read(sb, rq.cubin);
		for (int s = 0; s < rq.nsets; s++) {
			cko_sandbox_read(sb, rq.sets[s].in);
			if (rq.sets[s].expected)
				cko_sandbox_read(sb, rq.sets[s].expected);
		}
		if (rq.out) {
			cko_mkdir_p(rq.out);
			cko_sandbox_write(sb, rq.out);
		}
		cko_request_free(&rq);
	}
}

void cko_sandbox_gpu_worker(int n, char *const *requests, const char *json_out)
{
	if (!cko_sandbox_enabled())
		return;
	cko_sandbox sb = {0};
	cko_sandbox_gpu(&sb);
	cko_requests_sandbox(n, requests, &sb);
	cko_sandbox_write_beside(&sb, json_out);
	cko_sandbox_scrub_environ();
	cko_sandbox_enter_or_die(&sb);
	cko_sandbox_free(&sb);
}
