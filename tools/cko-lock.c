/* cko-lock: runs a command holding one GPU of a pool. Slot K is the lock
 * file DIR/gpu-K.lock (flock, released when the command exits, however it
 * exits); with more than one GPU the command sees only GPU K through
 * CUDA_VISIBLE_DEVICES. Several runs on one machine share the pool, so GPU
 * steps never share a GPU and timings stay clean under make -j. A step
 * given --after RECORD whose record is not ok only writes a skipped record
 * (harness/step.c): it runs at once, without a GPU or the launcher. */
#include "cko.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-lock [-n gpus] [-d dir] [--launcher command] [--] command [arg...]\n"
		"  -n, --gpus gpus         the pool size, 1 to 1024 (default $CKO_GPUS, else 1)\n"
		"  -d, --dir dir           the folder of the lock files (default $CKO_LOCK_DIR, else /tmp/cko-gpu-UID)\n"
		"      --launcher command  run the command under this launcher (split on blanks, no shell)\n"
		"  -h, --help              print this help and exit\n"
		"A cko step whose record before it is not ok (its after option, see cko-run --help) runs\n"
		"at once, without a GPU or the launcher: it only writes its skipped record.\n");
	exit(status);
}

static char *lock_dir(const char *given)
{
	if (given)
		return xstrdup(given);
	const char *e = getenv("CKO_LOCK_DIR");
	if (e && *e)
		return xstrdup(e);
	return xasprintf("/tmp/cko-gpu-%ld", (long)getuid());
}

/* Opens the lock folder, made 0700 if missing. Another user who made it
 * first (the /tmp name is predictable), or could write into it, could hold
 * or swap the locks: such a folder, or a link in its place, is refused. */
static int open_lock_dir(const char *dir)
{
	if (mkdir(dir, 0700) && errno != EEXIST) {
		if (errno == ENOENT)
			cko_out_check(dir);
		cko_die(CKO_ENV, "%s: %s", dir, strerror(errno));
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		cko_die(CKO_ENV,
			"%s: %s: the lock folder must be a folder, not a link; remove it, or give another with -d",
			dir, strerror(errno));
	struct stat st;
	if (fstat(fd, &st))
		cko_die(CKO_ENV, "%s: %s", dir, strerror(errno));
	if (st.st_uid != geteuid())
		cko_die(CKO_ENV,
			"%s: the lock folder is owned by uid %ld, not by you (uid %ld): another user may hold or "
			"replace its locks; remove it, or give a folder of your own with -d or CKO_LOCK_DIR",
			dir, (long)st.st_uid, (long)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		cko_die(CKO_ENV,
			"%s: the lock folder is writable by others (mode %04o): chmod go-w %s, or give a folder of "
			"your own with -d or CKO_LOCK_DIR",
			dir, (unsigned)(st.st_mode & 07777), cko_shell_quote(dir));
	return fd;
}

/* The K-th entry of a comma-separated CUDA_VISIBLE_DEVICES, or K. */
static char *device_for_slot(int k)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	if (!v || !*v)
		return xasprintf("%d", k);
	char *copy = xstrdup(v), *save = NULL, *tok = strtok_r(copy, ",", &save);
	for (int i = 0; tok && i < k; i++)
		tok = strtok_r(NULL, ",", &save);
	if (!tok)
		cko_die(CKO_BADINPUT, "GPU slot %d, but CUDA_VISIBLE_DEVICES=%s lists fewer GPUs", k, v);
	char *r = xstrdup(tok);
	free(copy);
	return r;
}

/* Runs the command (argv[0] a cko tool found beside cko-lock, or on PATH),
 * under the launcher if one is given. */
static _Noreturn void exec_tool(int argc, char **argv, const char *launcher)
{
	char **av = xcalloc((size_t)argc + 64, sizeof *av);
	int na = 0;
	if (launcher) {
		/* Split on blanks, no shell: e.g. "srun --gres=gpu:1 -n1". */
		char *save = NULL, *l = xstrdup(launcher);
		for (char *tok = strtok_r(l, " \t", &save); tok && na < 60; tok = strtok_r(NULL, " \t", &save))
			av[na++] = tok;
	}
	/* A cko tool runs from beside cko-lock, whatever PATH holds. */
	av[na++] = cko_tool_path(argv[0]);
	for (int i = 1; i < argc; i++)
		av[na++] = argv[i];
	execvp(av[0], av);
	if (errno == ENOENT && !strncmp(av[0], "cko-", 4))
		cko_die(CKO_ENV, "%s: not found beside cko-lock (%s) nor on PATH; build cko (make) or install it",
			av[0], cko_self_dir());
	cko_die(errno == ENOENT ? CKO_BADINPUT : CKO_ENV, "%s: %s", av[0], strerror(errno));
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"gpus", required_argument, 0, 'n'}, {"dir", required_argument, 0, 'd'},
		{"launcher", required_argument, 0, 'L'}, {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *dir_opt = NULL, *launcher = NULL, *env_n = getenv("CKO_GPUS");
	int n = env_n && *env_n ? atoi(env_n) : 1, c;
	/* '+': stop at the command, whose options are its own. */
	while ((c = getopt_long(argc, argv, "+n:d:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'd': dir_opt = optarg; break;
		case 'L': launcher = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind >= argc)
		usage(2);
	if (n < 1 || n > 1024)
		cko_die(CKO_BADINPUT, "-n %d: expected 1 to 1024 GPUs", n);
	if (cko_step_skipped(argc - optind, argv + optind))
		exec_tool(argc - optind, argv + optind, NULL);
	char *dir = lock_dir(dir_opt);
	int dfd = open_lock_dir(dir);
	int *fds = xcalloc((size_t)n, sizeof *fds);
	for (int k = 0; k < n; k++) {
		char name[32];
		snprintf(name, sizeof name, "gpu-%d.lock", k);
		fds[k] = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW, 0600); /* kept across exec: the lock */
		if (fds[k] < 0)
			cko_die(CKO_ENV, "%s/%s: %s", dir, name, strerror(errno));
		struct stat st;
		if (!fstat(fds[k], &st) && (st.st_mode & 077))
			fchmod(fds[k], 0600); /* made 0666 by an older cko-lock */
	}
	close(dfd);
	/* Try every slot; while all are busy, poll (a step takes seconds). */
	int slot = -1;
	double t0 = cko_now();
	int told = 0;
	while (slot < 0) {
		for (int k = 0; k < n && slot < 0; k++)
			if (flock(fds[k], LOCK_EX | LOCK_NB) == 0)
				slot = k;
			else if (errno != EWOULDBLOCK && errno != EINTR)
				cko_die(CKO_ENV, "flock %s/gpu-%d.lock: %s", dir, k, strerror(errno));
		if (slot < 0) {
			if (!told && cko_now() - t0 > 1) {
				cko_info("waiting for a GPU (%d in the pool, %s)", n, dir);
				told = 1;
			}
			usleep(20000);
		}
	}
	for (int k = 0; k < n; k++)
		if (k != slot)
			close(fds[k]);
	char s[16];
	snprintf(s, sizeof s, "%d", slot);
	setenv("CKO_GPU_SLOT", s, 1);
	if (n > 1 && !launcher) {
		char *dev = device_for_slot(slot);
		setenv("CUDA_VISIBLE_DEVICES", dev, 1);
		free(dev);
	}
	exec_tool(argc - optind, argv + optind, launcher);
}
