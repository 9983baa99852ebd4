# benchmarks/sweep.sh without a GPU (SWEEP_COMPILE_ONLY): the points of the
# sgemm space as cko-tune proposes them, compiled for sm_90 into the tar
# that a sweep on the GPU machine starts from.
. "$(dirname "$0")/../lib.sh"
for t in cko-tune cko-compile; do
	command -v $t >/dev/null || { skip sweep-compile "$t is not built"; finish; }
done
SWEEP_DIR=$T/sweep SWEEP_LIMIT=2 SWEEP_COMPILE_ONLY=sm_90 sh "$CKO_TOP/benchmarks/sweep.sh" "$T/log" >"$T/out" 2>&1
expect_eq sweep-compile/exit 0 $?
expect_eq sweep-compile/tar-entries 4 "$(tar tJf "$T/log/cubins.tar.xz" | wc -l)"
mkdir -p "$T/x" && tar xJf "$T/log/cubins.tar.xz" -C "$T/x"
n=$(ls "$T/x" | grep -c '^[0-9a-f]\{64\}$')
expect_eq sweep-compile/named-by-hash 2 "$n"
for f in "$T"/x/*/compile.json; do expect_jq sweep-compile/compiled '.status == "ok" and .arch == "sm_90"' "$f"; done
# named by the points' hashes (with SWEEP_LIMIT, the two smallest of the space)
want=$(cko-tune -s "$CKO_TOP/workloads/sgemm/space.json" --list 2>/dev/null | jq -r .hash | sort | head -n 2 | tr '\n' ' ')
expect_eq sweep-compile/the-space "$(ls "$T/x" | tr '\n' ' ')" "$want"
finish
