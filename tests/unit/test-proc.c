/* test-proc: child processes with a time limit, and the watchdog that
 * kills a stuck worker and writes the timeout result. */
#include "test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Sends this process's stderr to a file of the test's folder (what the
 * children and the watchdog say is checked there, not left on the
 * terminal); returns the saved descriptor for restore_stderr. */
static int stderr_to(const char *path)
{
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	return saved;
}

static void restore_stderr(int saved)
{
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
}

static int file_has(const char *path, const char *text)
{
	size_t n;
	char err[256];
	char *s = cko_try_read_file(path, 1 << 20, &n, err, sizeof err);
	int r = s && strstr(s, text);
	free(s);
	return r;
}

int main(void)
{
	const char *tmp = getenv("TEST_TMP");
	char *errpath = xasprintf("%s/stderr.txt", tmp && *tmp ? tmp : "/tmp");
	cko_proc r;
	char *echo[] = {"sh", "-c", "echo hello; echo oops >&2", NULL};
	int saved = stderr_to(errpath);
	int ran = cko_run_argv(echo, NULL, 5, 1024, 0, &r) == 0 && r.status == 0;
	restore_stderr(saved);
	CHECK("proc/runs", ran);
	CHECK("proc/stdout", r.out && !strcmp(r.out, "hello\n"));
	CHECK("proc/stderr-passed-on", file_has(errpath, "oops\n"));
	cko_proc_free(&r);
	CHECK("proc/merged", cko_run_argv(echo, NULL, 5, 1024, 1, &r) == 0 && strstr(r.out, "oops"));
	cko_proc_free(&r);
	char *cat[] = {"cat", NULL};
	CHECK("proc/stdin", cko_run_argv(cat, "to and fro", 5, 1024, 0, &r) == 0 && !strcmp(r.out, "to and fro"));
	cko_proc_free(&r);
	char *yes[] = {"sh", "-c", "head -c 100000 /dev/zero", NULL};
	CHECK("proc/truncated", cko_run_argv(yes, NULL, 5, 1000, 0, &r) == 0 && r.truncated && r.out_len == 1000);
	cko_proc_free(&r);
	char *slow[] = {"sleep", "10", NULL};
	double t0 = cko_now();
	CHECK("proc/timeout", cko_run_argv(slow, NULL, 0.3, 1024, 0, &r) == 0 && r.timed_out);
	CHECK("proc/timeout-prompt", cko_now() - t0 < 5);
	cko_proc_free(&r);
	char *st[] = {"sh", "-c", "exit 7", NULL};
	CHECK("proc/status", cko_run_argv(st, NULL, 5, 1024, 0, &r) == 0 && r.status == 7);
	cko_proc_free(&r);

	/* The watchdog: a worker stuck past the limit is killed, the parent
	 * writes the timeout result and exits with status 1. */
	char path[] = "/tmp/cko-test-watchdog.XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	cko_setprog("cko-fake");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		stderr_to(errpath);
		cko_watchdog(0.3, cko_watchdog_result, path);
		sleep(30); /* the stuck worker */
		_exit(0);
	}
	int status;
	t0 = cko_now();
	waitpid(pid, &status, 0);
	CHECK("watchdog/exit-1", WIFEXITED(status) && WEXITSTATUS(status) == 1);
	CHECK("watchdog/prompt", cko_now() - t0 < 10);
	CHECK("watchdog/says", file_has(errpath, "cko-fake: killed by the watchdog"));
	cJSON *j = cko_json_load(path);
	CHECK("watchdog/result", !strcmp(cko_jstr_opt(j, "status", ""), "timeout") &&
				       !strcmp(cko_jstr_opt(j, "tool", ""), "cko-fake"));
	cJSON_Delete(j);
	/* A worker that finishes in time passes its own status through. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		cko_watchdog(30, cko_watchdog_result, path);
		_exit(5);
	}
	waitpid(pid, &status, 0);
	CHECK("watchdog/passes-status", WIFEXITED(status) && WEXITSTATUS(status) == 5);
	unlink(path);
	if (!tmp || !*tmp)
		unlink(errpath);
	free(errpath);
	TEST_END();
}
