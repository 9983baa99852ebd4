/* proc.c: child processes run from an argv (never a shell), with a time
 * limit, bounded output and an allow-listed environment (no API key: a
 * child may run model-written code); and the watchdog that guards GPU
 * tools. */
#include "cko.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int cko_run_argv(char *const argv[], const char *stdin_data, double timeout_s, size_t max_out, int merge,
		 cko_proc *r)
{
	memset(r, 0, sizeof *r);
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC))
		return -1;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	/* Built before fork: the child of a threaded process may not malloc.
	 * A cko tool is the one beside this program, whatever PATH holds. */
	char **envp = cko_env_allowed();
	char *file = cko_tool_path(argv[0]);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		cko_envp_free(envp);
		free(file);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (merge)
			dup2(out[1], 2);
		execvpe(file, argv, envp);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	cko_envp_free(envp);
	free(file);
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	size_t in_len = stdin_data ? strlen(stdin_data) : 0, in_off = 0;
	if (!in_len) {
		close(in[1]);
		in[1] = -1;
	} else {
		fcntl(in[1], F_SETFL, O_NONBLOCK);
	}
	signal(SIGPIPE, SIG_IGN);
	cko_buf b = {0};
	buf_add(&b, "", 0);
	double deadline = timeout_s > 0 ? cko_now() + timeout_s : 0;
	int open_out = 1;
	while (open_out) {
		struct pollfd fds[2] = {{out[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
		int ms = -1;
		if (deadline) {
			double left = deadline - cko_now();
			if (left <= 0) {
				r->timed_out = 1;
				kill(-pid, SIGKILL);
				break;
			}
			ms = (int)(left * 1000) + 1;
		}
		int n = poll(fds, in[1] >= 0 ? 2 : 1, ms);
		if (n < 0 && errno != EINTR)
			break;
		if (in[1] >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = write(in[1], stdin_data + in_off, in_len - in_off);
			if (w > 0)
				in_off += (size_t)w;
			if (w < 0 || in_off == in_len) {
				close(in[1]);
				in[1] = -1;
			}
		}
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char chunk[8192];
			ssize_t k = read(out[0], chunk, sizeof chunk);
			if (k <= 0) {
				open_out = 0;
			} else if (b.len < max_out) {
				size_t take = (size_t)k;
				if (b.len + take > max_out) {
					take = max_out - b.len;
					r->truncated = 1;
				}
				buf_add(&b, chunk, take);
			} else {
				r->truncated = 1;
			}
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	close(out[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = b.s;
	r->out_len = b.len;
	return 0;
}

void cko_proc_free(cko_proc *r)
{
	free(r->out);
	r->out = NULL;
}

int cko_watchdog_result(void *path)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "tool", cko_prog());
	cJSON_AddStringToObject(o, "status", "timeout");
	char *m = xasprintf("%s did not finish in time and was killed by its watchdog", cko_prog());
	cJSON_AddStringToObject(o, "message", m);
	cko_json_write((const char *)path, o);
	cko_warn("killed by the watchdog");
	free(m);
	cJSON_Delete(o);
	return CKO_VERDICT;
}

void cko_watchdog(double seconds, int (*on_timeout)(void *), void *arg)
{
	if (seconds <= 0)
		return;
	fflush(NULL);
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid_t pid = fork();
	if (pid < 0)
		cko_die(CKO_ENV, "fork: %s", strerror(errno));
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return; /* the child does the work */
	}
	double deadline = cko_now() + seconds;
	for (;;) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		double left = deadline - cko_now();
		if (left <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			exit(on_timeout ? on_timeout(arg) : CKO_VERDICT);
		}
		struct timespec ts = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
			/* The worker must not outlive us. */
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			signal(sig, SIG_DFL);
			sigprocmask(SIG_SETMASK, &old, NULL);
			raise(sig);
			exit(128 + sig);
		}
	}
}
