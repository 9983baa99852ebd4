/* test-sandbox: what a confined worker may open. The rules cko-run and
 * cko-bench build from their requests let the worker read the request, its
 * cubin, inputs and expected outputs and write its outputs and result, and
 * nothing else: not a file beside them, not run.mk, not the environment.
 * The compile sandbox reads only the CUDA toolkit and connects nowhere. */
#include "test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char top[] = "/tmp/cko-test-sandbox.XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", top, rel);
	cko_write_file(p, text, strlen(text));
	free(p);
}

/* 0 when path opens for reading, else errno. */
static int can_read(const char *rel)
{
	char *p = rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", top, rel);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	int e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	free(p);
	return e;
}

static int can_create(const char *rel)
{
	char *p = xasprintf("%s/%s", top, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int e = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	free(p);
	return e;
}

/* Runs fn in a child; the child's checks print there, its failures make
 * it exit 1. */
static int in_child(void (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(test_failures ? 1 : 0);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void gpu_worker(void)
{
	char *req = xasprintf("%s/iter-001/c0/requests/small.json", top);
	char *reqs[] = {req};
	char *out = xasprintf("%s/iter-001/c0/run.json", top);
	cko_sandbox sb = {0};
	cko_sandbox_gpu(&sb);
	cko_requests_sandbox(1, reqs, &sb);
	cko_sandbox_write_beside(&sb, out);
	char err[512];
	CHECK("sandbox/gpu-enter", cko_sandbox_enter(&sb, err, sizeof err) == 0);
	CHECK("sandbox/reads-request", can_read("iter-001/c0/requests/small.json") == 0);
	CHECK("sandbox/reads-cubin", can_read("iter-001/c0/kernel.cubin") == 0);
	CHECK("sandbox/reads-input", can_read("cases/small/in/0/x.npy") == 0);
	CHECK("sandbox/reads-expected", can_read("cases/small/expected/0/y.npy") == 0);
	CHECK("sandbox/no-other-case", can_read("cases/hidden-1/in/0/x.npy") == EACCES);
	CHECK("sandbox/no-run-mk", can_read("run.mk") == EACCES);
	CHECK("sandbox/no-kernel-source-folder-sibling", can_read("iter-001/c0/../c1/kernel.cu") == EACCES);
	CHECK("sandbox/no-environ", can_read("/proc/self/environ") == EACCES);
	CHECK("sandbox/no-etc", can_read("/etc/passwd") == EACCES);
	cko_mkdir_p(xasprintf("%s/iter-001/c0/out/small/1", top));
	CHECK("sandbox/makes-out-folders", can_create("iter-001/c0/out/small/1/y.npy") == 0);
	cko_json_write(out, cJSON_CreateObject()); /* temporary + rename beside it */
	CHECK("sandbox/writes-result", can_read("iter-001/c0/run.json") == 0);
	CHECK("sandbox/no-write-elsewhere", can_create("cases/small/in/0/x.npy") == EACCES);
	CHECK("sandbox/no-new-file-elsewhere", can_create("planted.cu") == EACCES);
}

static void compile_worker(void)
{
	cko_sandbox sb = {0};
	cko_sandbox_read(&sb, cko_cuda_root());
	char err[512];
	CHECK("sandbox/compile-enter", cko_sandbox_enter(&sb, err, sizeof err) == 0);
	char *h = xasprintf("%s/include/cuda_fp16.h", cko_cuda_root());
	CHECK("sandbox/compile-reads-toolkit", can_read(h) == 0);
	CHECK("sandbox/compile-no-run", can_read("iter-001/c0/kernel.cubin") == EACCES);
	CHECK("sandbox/compile-no-proc", can_read("/proc/self/environ") == EACCES && can_read("/proc/self/status") == EACCES);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int r = connect(s, (struct sockaddr *)&a, sizeof a);
	/* ABI 4 and later refuse the connection itself. */
	CHECK("sandbox/compile-no-tcp", cko_sandbox_abi() < 4 || (r < 0 && errno == EACCES));
	close(s);
}

int main(void)
{
	if (!cko_sandbox_abi()) {
		printf("skip sandbox: this kernel has no Landlock\n");
		return 0;
	}
	if (!mkdtemp(top))
		return 1;
	put("run.mk", "HIDDEN_SEED := 12345\n");
	put("cases/small/in/0/x.npy", "x");
	put("cases/small/expected/0/y.npy", "y");
	put("cases/hidden-1/in/0/x.npy", "h");
	put("iter-001/c0/kernel.cubin", "cubin");
	put("iter-001/c1/kernel.cu", "other");
	put("iter-001/c0/requests/small.json",
	    "{\"case\": \"small\", \"cubin\": \"../kernel.cubin\", \"entry\": \"copy\", \"grid\": [1], \"block\": [32],\n"
	    " \"params\": [{\"name\": \"x\", \"kind\": \"buffer\", \"dtype\": \"f32\", \"role\": \"in\", \"shape\": [1]},\n"
	    "  {\"name\": \"y\", \"kind\": \"buffer\", \"dtype\": \"f32\", \"role\": \"out\", \"shape\": [1]}],\n"
	    " \"sets\": [{\"in\": \"../../../cases/small/in/0\", \"expected\": \"../../../cases/small/expected/0\"}],\n"
	    " \"out\": \"../out/small\"}\n");
	CHECK("sandbox/gpu-worker", in_child(gpu_worker));
	CHECK("sandbox/compile-worker", in_child(compile_worker));
	CHECK("sandbox/parent-unconfined", can_read("run.mk") == 0);
	char *rm = xasprintf("rm -rf '%s'", top);
	CHECK("sandbox/cleanup", system(rm) == 0);
	TEST_END();
}
