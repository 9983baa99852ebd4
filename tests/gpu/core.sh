# GPU tests of the evaluation core: a naive SGEMM run and checked
# against a NumPy float64 reference; a faulting kernel; a hanging kernel
# stopped by the watchdog; partial writes, guard overruns, input mutation
# and nondeterminism caught; dynamic shared memory above 48 KB; cko-bench
# statistics, its --check, the hash of every timed launch's outputs (a
# kernel right on some launches only is caught), and its agreement with
# ncu's gpu__time_duration. Outputs are compared with the expected ones on
# the device (the same statistics as on the host) and kept only on failure.
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/core "no GPU"; finish; fi
if ! have_numpy; then skip gpu/core "python3 with numpy is needed for the host reference"; finish; fi
K=$CKO_TOP/tests/gpu/kernels
cd "$T" || exit 1

cat >sig.json <<'J'
{"entry": "sgemm", "params": [
 {"name": "A", "kind": "buffer", "dtype": "f32", "role": "in", "shape": ["M", "K"]},
 {"name": "B", "kind": "buffer", "dtype": "f32", "role": "in", "shape": ["K", "N"]},
 {"name": "C", "kind": "buffer", "dtype": "f32", "role": "out", "shape": ["M", "N"]},
 {"name": "M", "kind": "scalar", "dtype": "i32"}, {"name": "N", "kind": "scalar", "dtype": "i32"},
 {"name": "K", "kind": "scalar", "dtype": "i32"}]}
J
echo '{"grid": ["ceil_div(N, 16)", "ceil_div(M, 16)"], "block": [16, 16]}' >launch.json
echo '{"grid": ["ceil_div(N, 16)", "ceil_div(M, 16)"], "block": [16, 16], "smem": 102400}' >launch-smem.json
python3 - <<'P'
import json, os, numpy as np
cases = [("odd", "correctness", 129, 67, 45, 1), ("big", "performance", 1024, 1024, 1024, 2)]
index = []
for name, kind, M, N, K, sets in cases:
    for s in range(sets):
        rng = np.random.default_rng(1000 * s + M)
        A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
        B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
        os.makedirs(f"cases/{name}/in/{s}", exist_ok=True)
        os.makedirs(f"cases/{name}/expected/{s}", exist_ok=True)
        np.save(f"cases/{name}/in/{s}/A.npy", A)
        np.save(f"cases/{name}/in/{s}/B.npy", B)
        np.save(f"cases/{name}/expected/{s}/C.npy", (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32))
    case = {"name": name, "kind": kind, "hidden": False, "scalars": {"M": M, "N": N, "K": K}, "sets": sets,
            "tolerance": {"C": {"rtol": 1e-4, "atol": 1e-3}}, "flops": 2 * M * N * K, "bytes": 4 * (M * K + K * N + M * N)}
    json.dump(case, open(f"cases/{name}/case.json", "w"))
    index.append({"name": name, "kind": kind, "hidden": False, "sets": sets})
json.dump(index, open("cases/index.json", "w"))
P

# prepare KERNEL [LAUNCH]: compiles into DIR=cand-KERNEL and makes its requests.
prepare() {
	d=cand-$1
	mkdir -p "$d"
	cko-compile --arch "$ARCH" -e sgemm -o "$d/kernel.cubin" -j "$d/compile.json" "$K/$1.cu" 2>"$d/compile.err" &&
		cko-request -s sig.json -l "${2:-launch.json}" -b "$d/kernel.cubin" -c cases -o "$d/requests"
}

cko-props --measure -o props.json
expect_jq gpu/props-fields '.name and .sms > 0 and .l2_bytes > 0 and .smem_per_block_optin >= 49152 and .measured.copy_gbps > 0 and .measured.fp32_tflops > 0' props.json
ARCH=$(jq -r .arch props.json)

prepare naive_sgemm
expect_status gpu/run-naive 0 cko-run -o cand-naive_sgemm/run.json cand-naive_sgemm/requests/odd.json cand-naive_sgemm/requests/big.json
expect_jq gpu/run-naive-json '.status == "ok" and (.cases | length) == 2 and .double == true' cand-naive_sgemm/run.json
expect_jq gpu/run-inputs-hashed '.phase_seconds.input_host_checks == 0' cand-naive_sgemm/run.json
# Passing outputs are compared on the device and not kept: NAME.json says
# what the comparison found, and cko-compare takes it from there.
expect_jq gpu/run-compared-on-device '[.cases[] | .compared == "device" and .outputs_kept == false] | all' cand-naive_sgemm/run.json
if [ -f cand-naive_sgemm/out/big/1/C.json ] && [ ! -e cand-naive_sgemm/out/big/1/C.npy ]; then ok gpu/outputs-not-kept
else fail gpu/outputs-not-kept "$(ls cand-naive_sgemm/out/big/1)"; fi
expect_status gpu/compare-naive 0 cko-compare --requests -o cand-naive_sgemm/compare.json cand-naive_sgemm/requests/odd.json cand-naive_sgemm/requests/big.json
expect_jq gpu/compare-from-device '[.cases[].sets[].tensors.C.compared_on == "device"] | all' cand-naive_sgemm/compare.json
expect_status gpu/compare-other-tolerance 2 cko-compare --requests --rtol 0 -o discard.json cand-naive_sgemm/requests/odd.json
# The same outputs kept and compared on the host: every statistic equal.
expect_status gpu/run-naive-keep 0 cko-run --keep-outputs -o cand-naive_sgemm/run-keep.json cand-naive_sgemm/requests/odd.json cand-naive_sgemm/requests/big.json
if [ -f cand-naive_sgemm/out/big/1/C.npy ] && [ ! -e cand-naive_sgemm/out/big/1/C.json ]; then ok gpu/outputs-kept
else fail gpu/outputs-kept "$(ls cand-naive_sgemm/out/big/1)"; fi
expect_status gpu/compare-naive-host 0 cko-compare --requests -o cand-naive_sgemm/compare-host.json cand-naive_sgemm/requests/odd.json cand-naive_sgemm/requests/big.json
jq -S '[.cases[].sets[].tensors.C | del(.compared_on)]' cand-naive_sgemm/compare.json >dev.txt
jq -S '[.cases[].sets[].tensors.C]' cand-naive_sgemm/compare-host.json >host.txt
if cmp -s dev.txt host.txt && [ "$(jq '.[0].max_abs > 0' dev.txt)" = true ]; then ok gpu/device-compare-equals-host
else fail gpu/device-compare-equals-host "$(diff dev.txt host.txt | head -5)"; fi
# A set whose outputs differ from the expected ones keeps them, and the
# host names the first mismatches: one element of the expected output changed.
mkdir -p wrong && cp -r cases wrong/ && python3 - <<'P'
import numpy as np
p = "wrong/cases/big/expected/0/C.npy"; e = np.load(p); e[3, 5] += 1; np.save(p, e)
P
cko-request -s sig.json -l launch.json -b cand-naive_sgemm/kernel.cubin -c wrong/cases -o wrong/requests
expect_status gpu/run-wrong 0 cko-run -o wrong/run.json wrong/requests/big.json
expect_jq gpu/run-wrong-kept '.cases[0].outputs_kept == true and .cases[0].sets[0].compare.C.mismatches == 1 and .cases[0].sets[0].compare.C.first[0].index == [3, 5]' wrong/run.json
if [ -f wrong/out/big/0/C.npy ] && [ -f wrong/out/big/1/C.json ]; then ok gpu/wrong-set-kept-only
else fail gpu/wrong-set-kept-only "$(ls wrong/out/big/*)"; fi
expect_status gpu/compare-wrong 1 cko-compare --requests -o wrong/compare.json wrong/requests/big.json
expect_jq gpu/compare-wrong-first '.cases[0].sets[0].tensors.C.first[0].index == [3, 5] and .cases[0].sets[1].status == "ok"' wrong/compare.json
python3 - cand-naive_sgemm <<'P' && ok gpu/outputs-vs-numpy || fail gpu/outputs-vs-numpy "cko-run's outputs differ from numpy"
import sys, numpy as np
d = sys.argv[1]
for case in ("odd", "big"):
    a = np.load(f"{d}/out/{case}/0/C.npy"); e = np.load(f"cases/{case}/expected/0/C.npy")
    assert a.shape == e.shape and a.dtype == np.float32, (a.shape, a.dtype)
    assert np.allclose(a, e, rtol=1e-4, atol=1e-3), np.abs(a - e).max()
P

prepare fault
expect_status gpu/fault-exit 1 cko-run -o cand-fault/run.json cand-fault/requests/odd.json cand-fault/requests/big.json
expect_jq gpu/fault-named '.cases[0].status == "fault" and (.cases[0].error | test("ILLEGAL_ADDRESS|LAUNCH_FAILED")) and .cases[1].status == "skipped"' cand-fault/run.json

prepare hang
start=$(date +%s)
expect_status gpu/hang-exit 1 cko-run -t 2 -o cand-hang/run.json cand-hang/requests/odd.json
took=$(( $(date +%s) - start ))
expect_jq gpu/hang-timeout '.cases[0].status == "timeout" or .status == "timeout"' cand-hang/run.json
[ "$took" -lt 60 ] && ok gpu/hang-bounded || fail gpu/hang-bounded "took $took s"
expect_status gpu/after-hang-gpu-usable 0 cko-run -o cand-naive_sgemm/run2.json cand-naive_sgemm/requests/odd.json

prepare half
expect_status gpu/half-exit 1 cko-run -o cand-half/run.json cand-half/requests/odd.json
expect_jq gpu/half-unwritten '.cases[0].status == "unwritten" and .cases[0].detail.C.unwritten == (65 * 67)' cand-half/run.json

prepare overrun
expect_status gpu/overrun-exit 1 cko-run -o cand-overrun/run.json cand-overrun/requests/odd.json
expect_jq gpu/overrun-guard '.cases[0].status == "guard_overwrite" and (.cases[0].message | test("past its end"))' cand-overrun/run.json

prepare mutate
expect_status gpu/mutate-exit 1 cko-run -o cand-mutate/run.json cand-mutate/requests/odd.json
expect_jq gpu/mutate-input '.cases[0].status == "input_modified" and (.cases[0].message | test("input B"))' cand-mutate/run.json

prepare clock
expect_status gpu/clock-exit 1 cko-run -o cand-clock/run.json cand-clock/requests/odd.json
expect_jq gpu/clock-nondeterministic '.cases[0].status == "nondeterministic"' cand-clock/run.json

prepare bigsmem launch-smem.json
expect_status gpu/smem-100k 0 cko-run -o cand-bigsmem/run.json cand-bigsmem/requests/odd.json
expect_status gpu/smem-100k-compare 0 cko-compare --requests -o "$T/discard.json" cand-bigsmem/requests/odd.json

# cko-bench: statistics, rotation over both sets, --check of the timed outputs.
expect_status gpu/bench 0 cko-bench --check -o bench.json cand-naive_sgemm/requests/big.json
# The inputs' device hashes match from the upload on: no host comparison.
expect_jq gpu/bench-inputs-hashed '.phase_seconds.input_host_checks == 0' bench.json
expect_jq gpu/bench-stats '.cases[0] as $c | $c.min_ms <= $c.p10_ms and $c.p10_ms <= $c.median_ms and $c.median_ms <= $c.p90_ms and $c.p90_ms <= $c.max_ms and $c.n == 100 and ($c.samples_ms | length) == 100 and $c.cv < 0.5 and $c.check == "ok" and $c.sets == 2' bench.json
expect_status gpu/bench-check-catches 1 cko-bench --check -n 10 -w 2 -o bench-half.json cand-half/requests/big.json
expect_jq gpu/bench-check-json '.cases[0].check == "fail"' bench-half.json
expect_jq gpu/bench-every-launch-hashed '.cases[0].launches_hashed == 100' bench.json
# Correct on some timed launches only: the launches' output hashes differ.
prepare timed_coin
expect_status gpu/timed-coin-rejected 1 cko-bench --check -o bench-coin.json cand-timed_coin/requests/big.json
expect_jq gpu/timed-coin-nondeterministic '.cases[0].status == "nondeterministic" and (.cases[0].message | test("timed launch"))' bench-coin.json

# cko-bench against Nsight Compute's own duration of the same launch.
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -n "$NCU" ]; then
	"$NCU" --clock-control none --kernel-name sgemm --launch-count 5 --metrics gpu__time_duration.sum --csv \
		cko-run --no-double --no-write cand-naive_sgemm/requests/big.json >ncu.csv 2>ncu.err
	ncu_ms=$(python3 -c '
import csv, sys, statistics
rows = [r for r in csv.reader(open("ncu.csv")) if len(r) > 5 and r[-3] == "gpu__time_duration.sum"]
v = [float(r[-1].replace(",", "")) for r in rows]
unit = rows[0][-2]
scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "ns": 1e-6, "us": 1e-3, "ms": 1.0}[unit]
print(statistics.median(v) * scale)' 2>>ncu.err)
	bench_ms=$(jq .cases[0].median_ms bench.json)
	if [ -n "$ncu_ms" ]; then
		echo "info gpu/bench-vs-ncu: cko-bench median $bench_ms ms, ncu gpu__time_duration median $ncu_ms ms"
		python3 -c "import sys; b, n = $bench_ms, $ncu_ms; sys.exit(0 if abs(b - n) / n < 0.10 else 1)" &&
			ok gpu/bench-vs-ncu || fail gpu/bench-vs-ncu "bench $bench_ms ms vs ncu $ncu_ms ms"
	else
		fail gpu/bench-vs-ncu "could not read ncu's output: $(head -c 300 ncu.err)"
	fi
else
	skip gpu/bench-vs-ncu "ncu not found"
fi
finish
