# The compile sandbox: a kernel source cannot read host files through the
# compiler, whatever form it takes past the #include screen, cannot tell
# which files exist, and a compile that runs away is stopped by its limits.
# Each hostile source is compiled and its compile.json, stderr and the
# output folder must hold no byte of the secrets (a file, a .env, the key
# in the environment, a hidden case and run.mk in a run-like folder).
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
if [ "$(cko-compile --help | grep -c no-sandbox)" -eq 0 ]; then fail sandbox/help "no --no-sandbox in --help"; fi
body='extern "C" __global__ void k(float *a) { a[threadIdx.x] = 1; }'
echo "$body" >probe.cu
if ! cko-compile -a sm_90 -o probe.cubin -j probe.json probe.cu 2>probe.err && grep -q 'no Landlock' probe.err; then
	skip sandbox/compile "this kernel has no Landlock"
	expect_status sandbox/refuses-without 3 cko-compile -a sm_90 -o k.cubin -j k.json probe.cu
	finish
fi

# The secrets: distinct markers, so a match names its source.
mkdir -p run/cases/hidden_x run/iter-001/c0 secret
echo "FILEMARK_q7Zp1" >secret/s.txt
echo "OPENAI_API_KEY=sk-DOTENVMARK-x8Rt2Lm9Qw" >run/.env
echo "HIDDEN_SEED := 482913577" >run/run.mk
printf '\223NUMPY\001\000v\000{"descr": "<f4", "fortran_order": False, "shape": (HIDMARK_91,), }' >run/cases/hidden_x/A.npy
ln -s "$T/secret/s.txt" run/iter-001/c0/link.txt
S=$T/secret/s.txt
export OPENAI_API_KEY=sk-ENVMARK-Vb73KqPz0Lr MY_SECRET_TOKEN=TOKMARK_55ab
markers='FILEMARK_q7Zp1|DOTENVMARK|482913577|HIDMARK_91|ENVMARK|TOKMARK_55ab'

hostile() { # NAME SOURCE-TEXT: compiled in run/iter-001/c0 as a candidate is
	d=run/iter-001/c0
	printf '%s\n%s\n' "$2" "$body" >$d/kernel.cu
	rm -f $d/compile.json $d/kernel.cubin
	(cd $d && cko-compile -a sm_90 -e k -o kernel.cubin -j compile.json kernel.cu >stdout.txt 2>stderr.txt)
	st=$?
	if [ $st -ne 1 ] && [ $st -ne 0 ]; then fail "sandbox/$1" "exit $st: $(head -c 300 $d/stderr.txt)"; return; fi
	if grep -Eaq "$markers" $d/compile.json $d/stdout.txt $d/stderr.txt; then
		fail "sandbox/$1" "a secret reached the output: $(grep -Eao "$markers" $d/compile.json $d/stderr.txt | head -3)"
	elif grep -q 'Permission denied' $d/compile.json; then
		fail "sandbox/$1" "the log tells a hidden file from a missing one"
	else
		ok "sandbox/$1"
	fi
	cp $d/compile.json "log-$1.json"
}

# The forms that passed the textual screen, then others.
hostile comment-before "/* */ #include \"$S\""
hostile comment-inside "#/**/include \"$S\""
hostile digraph "%:include \"$S\""
hostile multiline-comment "/*
*/ #include \"$S\""
hostile macro "#define F \"$S\"
#include F // \"cuda_fp16.h\""
hostile trigraph "??=include \"$S\""
hostile splice "#inc\\
lude \"$S\""
hostile include-next "%:include_next \"$S\""
hostile pragma-operator "_Pragma(\"once\") %:include \"$S\""
hostile line-directive "#line 1 \"$S\"
%:include __FILE__"
hostile relative-symlink '%:include "link.txt"'
hostile dotenv-cwd '%:include "/proc/self/cwd/../../.env"'
hostile dotenv-relative '%:include "../../.env"'
hostile environ '%:include "/proc/self/environ"'
hostile parent-environ '%:include "/proc/1/environ"'
hostile fd '%:include "/proc/self/fd/0"'
hostile hidden-case '%:include "../../cases/hidden_x/A.npy"'
hostile run-mk '%:include "../../run.mk"'
hostile etc-passwd '%:include "/etc/passwd"'

# The control: unconfined, the same digraph form does leak (so the checks
# above would see a leak).
printf '%%:include "%s"\n%s\n' "$S" "$body" >leak.cu
cko-compile --no-sandbox -a sm_90 -e k -o leak.cubin -j leak.json leak.cu 2>/dev/null
expect_grep sandbox/control-unconfined-leaks FILEMARK_q7Zp1 leak.json

# __has_include answers the same for an existing and a missing file.
hostile has-include "#if __has_include(\"$S\")
#error EXISTS
#endif"
expect_jq sandbox/has-include-says-absent '.log | test("EXISTS") | not' log-has-include.json
hostile include-missing "%:include \"$T/secret/none.txt\""
a=$(jq -r .log log-etc-passwd.json | sed 's|/etc/passwd|P|g' | tr -s ' ')
b=$(jq -r .log log-include-missing.json | sed "s|$T/secret/none.txt|P|g" | tr -s ' ')
expect_eq sandbox/exists-indistinguishable "$a" "$b"

# An ordinary kernel still compiles inside the sandbox, CCCL headers too.
printf '#include <cuda/std/limits>\n#include <cooperative_groups.h>\n%s\n' "$body" >good.cu
expect_status sandbox/good-compiles 0 cko-compile -a sm_90 -e k -o good.cubin -j good.json good.cu
expect_jq sandbox/recorded '.sandbox | startswith("landlock ABI")' good.json
expect_status sandbox/no-sandbox 0 cko-compile --no-sandbox -a sm_90 -e k -o good.cubin -j good2.json good.cu
expect_jq sandbox/no-sandbox-recorded '.sandbox == "off (--no-sandbox)"' good2.json

# Limits: a template bomb against the wall clock, a data bomb against memory.
cat >bomb.cu <<'EOF'
template <int N, int M> struct B { enum { v = B<N - 1, M * 2>::v + B<N - 1, M * 2 + 1>::v }; };
template <int M> struct B<0, M> { enum { v = 1 }; };
extern "C" __global__ void k(int *o) { *o = B<40, 0>::v; }
EOF
t0=$(date +%s)
expect_status sandbox/template-bomb 1 cko-compile -a sm_90 -e k -t 3 -m 8192 -o bomb.cubin -j bomb.json bomb.cu
t1=$(date +%s)
expect_jq sandbox/template-bomb-reason '.status == "error" and .reason == "compile_timeout"' bomb.json
if [ $((t1 - t0)) -le 20 ]; then ok sandbox/template-bomb-bounded; else fail sandbox/template-bomb-bounded "took $((t1 - t0)) s"; fi
[ -e bomb.cubin ] && fail sandbox/template-bomb-no-cubin "a cubin was left" || ok sandbox/template-bomb-no-cubin
cat >mem.cu <<'EOF'
__device__ int big[1 << 28] = {1};
extern "C" __global__ void k(int *o) { *o = big[threadIdx.x]; }
EOF
expect_status sandbox/memory-bomb 1 cko-compile -a sm_90 -e k -t 120 -m 600 -o mem.cubin -j mem.json mem.cu
expect_jq sandbox/memory-bomb-reason '.status == "error" and .reason == "compile_memory"' mem.json
expect_status sandbox/bad-timeout 2 cko-compile -a sm_90 -t 0 -o x.cubin good.cu
expect_status sandbox/bad-memory 2 cko-compile -a sm_90 -m 12 -o x.cubin good.cu
finish
