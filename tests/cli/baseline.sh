#!/bin/sh
# cko-baseline without a GPU: which requests it takes (sgemm, transpose,
# reduce_sum, one workload per call) and which it refuses before touching
# the GPU (exit 2); and cko-rank's use of baseline.json: each case's
# vendor time and fraction in summary.json and in --print's "of VENDOR"
# column beside "of copy", never a case whose baseline failed its check.
# The timings themselves: tests/gpu/families.sh.
. "$(dirname "$0")/../lib.sh"
command -v cko-baseline >/dev/null || { skip baseline "cko-baseline is not built"; finish; }
cd "$T" || exit 1
cat >t.json <<'J'
{"case": "sq", "cubin": "kernel.cubin", "entry": "transpose",
 "grid": [1, 1, 1], "block": [256, 1, 1], "smem": 0,
 "params": [
  {"name": "x", "kind": "buffer", "dtype": "f32", "role": "in", "shape": [4, 8]},
  {"name": "y", "kind": "buffer", "dtype": "f32", "role": "out", "shape": [8, 4]},
  {"name": "R", "kind": "scalar", "dtype": "i32", "value": 4},
  {"name": "C", "kind": "scalar", "dtype": "i32", "value": 8}],
 "sets": [{"in": "in/0"}], "out": "out"}
J
sed 's/"transpose"/"softmax"/' t.json >s.json
sed 's/"name": "C"/"name": "N"/' t.json >bad.json
sed 's/\[8, 4\]/[8, 5]/' t.json >shape.json
sed 's/"transpose"/"reduce_sum"/; s/"name": "C"/"name": "N"/; s/\[8, 4\]/[4]/' t.json >r.json
expect_status baseline/help 0 cko-baseline --help
expect_grep baseline/help-workloads 'transpose.*reduce_sum' "$T/last.out"
expect_status baseline/no-args 2 cko-baseline
expect_status baseline/no-vendor 2 cko-baseline s.json
expect_grep baseline/no-vendor-says "s.json: no vendor baseline for 'softmax'" "$T/last.err"
expect_status baseline/mixed 2 cko-baseline t.json r.json
expect_grep baseline/mixed-says 'r.json: a reduce_sum request among transpose requests' "$T/last.err"
expect_status baseline/params 2 cko-baseline bad.json
expect_grep baseline/params-says 'bad.json: not a transpose request .*: C' "$T/last.err"
expect_status baseline/shape 2 cko-baseline shape.json
expect_grep baseline/shape-says 'shape.json: buffer sizes do not match' "$T/last.err"
if ! have_gpu; then
	# a well-formed request gets as far as the GPU
	expect_status baseline/no-gpu 3 cko-baseline r.json
fi

# cko-rank: a run with a CUB baseline whose second case failed its check.
R=$T/run
mkdir -p "$R/cases/big" "$R/cases/long" "$R/iter-000/c0"
echo '[{"name": "small", "kind": "correctness"}, {"name": "big", "kind": "performance"},
 {"name": "long", "kind": "performance"}]' >"$R/cases/index.json"
echo '{"bytes": 4e9}' >"$R/cases/big/case.json"
echo '{"bytes": 2e9}' >"$R/cases/long/case.json"
echo '{"name": "Fake GPU", "measured": {"copy_gbps": 4000}}' >"$R/props.json"
echo '{"workload": "reduce_sum", "proposer": "tuner"}' >"$R/config.json"
echo '{"id": "iter-000/c0", "iteration": 0, "status": "ok", "geomean_ms": 1.118,
 "cases": [{"case": "small", "kind": "correctness", "status": "ok"},
  {"case": "big", "kind": "performance", "status": "ok", "median_ms": 1.25},
  {"case": "long", "kind": "performance", "status": "ok", "median_ms": 1.0}]}' >"$R/iter-000/c0/result.json"
echo '{"tool": "cko-baseline", "status": "check_failed", "vendor": "CUB",
 "cases": [{"case": "big", "status": "ok", "check": "ok", "median_ms": 1.5},
  {"case": "long", "status": "check_failed", "check": "fail", "median_ms": 0.5}]}' >"$R/baseline.json"
expect_status baseline/rank 0 cko-rank --run "$R" --upto 0 -o "$R/history.json" --summary "$R/summary.json"
expect_jq baseline/summary-vendor '.baseline == "CUB" and .fraction_of_baseline == 1.2' "$R/summary.json"
expect_jq baseline/summary-case '.cases[] | select(.case == "big") | .baseline_ms == 1.5 and
	.fraction_of_baseline == 1.2 and .copy_bandwidth_fraction == 0.8' "$R/summary.json"
expect_jq baseline/summary-failed-left-out '.cases[] | select(.case == "long") |
	(has("baseline_ms") | not) and .copy_bandwidth_fraction == 0.5' "$R/summary.json"
expect_jq baseline/sol-failed-left-out '[.sol.cases[] | select(has("baseline_ms"))] | map(.case) == ["big"]' "$R/summary.json"
expect_status baseline/print 0 cko-rank --print "$R/summary.json"
expect_grep baseline/print-total '120.0% of CUB' "$T/last.out"
expect_grep baseline/print-header 'of copy +of CUB$' "$T/last.out"
expect_grep baseline/print-big '^big .* 80\.0% +120\.0%$' "$T/last.out"
expect_grep baseline/print-long '^long .* 50\.0% +-$' "$T/last.out"
# An older baseline.json (sgemm, no vendor) is cuBLAS's.
jq 'del(.vendor)' "$R/baseline.json" >"$R/b" && mv "$R/b" "$R/baseline.json"
cko-rank --run "$R" --upto 0 --summary "$R/summary.json" && cko-rank --print "$R/summary.json" >"$T/p2"
expect_grep baseline/print-cublas 'of cuBLAS$' "$T/p2"
finish
