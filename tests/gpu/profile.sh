# GPU test of cko-profile: profiles a tiny request under Nsight
# Compute and checks profile.json and the summary.
# Assumes the lead's tools: cko-props (arch), cko-compile, cko-request
# (cases folder: index.json + NAME/case.json + NAME/in/SET/BUF.npy, as
# docs/formats.md), cko-run (with --no-double --sets --no-write), cko-npy
# (writes the input .npy); and ncu on PATH, in $NCU, /usr/local/cuda/bin or
# /opt/nvidia/nsight-compute. Skips without a GPU or without ncu, and when
# the performance counters are not permitted (ERR_NVGPUCTRPERM).
# Set CKO_PROFILE_CAPTURE=DIR to keep the real raw-page CSV export and the
# profile (e.g. as a new tests/data/ncu fixture).
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/profile "no GPU"; finish; fi
NCU_BIN=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -n 1)}
if [ -z "$NCU_BIN" ]; then skip gpu/profile "ncu not found"; finish; fi
cd "$T" || exit 1

cat >scale.cu <<'CU'
extern "C" __global__ void scale(const float *x, float *y, int n)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
	if (i < n)
		y[i] = 2.0f * s[threadIdx.x];
}
CU
cat >sig.json <<'J'
{"entry": "scale", "params": [
 {"name": "x", "kind": "buffer", "dtype": "f32", "role": "in", "shape": ["N"]},
 {"name": "y", "kind": "buffer", "dtype": "f32", "role": "out", "shape": ["N"]},
 {"name": "N", "kind": "scalar", "dtype": "i32"}]}
J
echo '{"grid": ["ceil_div(N, 256)"], "block": [256]}' >launch.json
N=1048576
mkdir -p cases/big/in/0
echo '[{"name": "big", "kind": "performance", "hidden": false, "sets": 1}]' >cases/index.json
echo '{"name": "big", "kind": "performance", "hidden": false, "scalars": {"N": '$N'}, "sets": 1,
 "tolerance": {}, "flops": '$N', "bytes": '$((8 * N))'}' >cases/big/case.json
seq 1 $N | cko-npy -t f32 -s $N -o cases/big/in/0/x.npy -
cko-props -o props.json
ARCH=$(jq -r .arch props.json)
expect_status gpu/profile-compile 0 cko-compile --arch "$ARCH" -e scale -o scale.cubin -j compile.json scale.cu
expect_status gpu/profile-request 0 cko-request -s sig.json -l launch.json -b scale.cubin -c cases -o requests

mkdir -p prof
cko-profile --ncu "$NCU_BIN" -o prof/profile.json --summary prof/summary.txt --save-csv prof/raw.csv \
	requests/big.json >prof.out 2>prof.err
rc=$?
if [ $rc -eq 3 ] && grep -q ERR_NVGPUCTRPERM prof.err; then
	skip gpu/profile "ncu may not read the performance counters here (ERR_NVGPUCTRPERM)"
	expect_jq gpu/profile-no-permission-json '.status == "no_permission"' prof/profile.json
	finish
fi
expect_eq gpu/profile-exit "$rc" 0
[ $rc -eq 0 ] || echo "info gpu/profile: $(tail -c 1500 prof.err)"
if [ -n "$CKO_PROFILE_CAPTURE" ]; then
	mkdir -p "$CKO_PROFILE_CAPTURE" && cp prof/raw.csv prof/profile.json prof/summary.txt "$CKO_PROFILE_CAPTURE/"
fi
expect_jq gpu/profile-status '.tool == "cko-profile" and .status == "ok" and .kernel == "scale" and .case == "big"' prof/profile.json
expect_jq gpu/profile-report '.report == "prof/profile.ncu-rep"' prof/profile.json
[ -s prof/profile.ncu-rep ] && ok gpu/profile-report-file || fail gpu/profile-report-file "no prof/profile.ncu-rep"
# Every metric cko-profile asks for should exist in this ncu; the list says which do not.
expect_jq gpu/profile-no-missing '.missing == []' prof/profile.json
echo "info gpu/profile-missing: $(jq -c .missing prof/profile.json)"
expect_jq gpu/profile-derived '.derived | .duration_ms > 0 and .sol_compute_pct >= 0 and .sol_memory_pct > 0 and
	.achieved_occupancy_pct > 0 and .theoretical_occupancy_pct > 0 and (.occupancy_limiter | type) == "string" and
	.registers_per_thread > 0 and .block_size == 256 and .grid_size == 4096 and (.top_stalls | length) > 0 and
	.dram_bytes.read > 0 and .dram_bytes.write >= 0 and (.l1_hit_pct | type) == "number" and
	(.l2_hit_pct | type) == "number" and .smem_bank_conflicts.load >= 0 and .local_bytes.load == 0 and
	.global_load_sectors_per_request > 0' prof/profile.json
# The kernel reads and writes 4 MB each: DRAM traffic should be close to that.
# Writes of a small output can stay in the 50 MB L2 past the kernel's end: only reads are bounded.
expect_jq gpu/profile-dram-plausible '.derived.dram_bytes | .read > 3e6 and .read < 6e6 and .write >= 0 and .write < 6e6' prof/profile.json
lines=$(wc -l <prof/summary.txt)
if [ "$lines" -ge 8 ] && [ "$lines" -le 15 ]; then ok gpu/profile-summary; else fail gpu/profile-summary "$lines lines"; fi
echo "info gpu/profile-summary:"; sed 's/^/info   /' prof/summary.txt
finish
