# cko-profile --csv: the metrics and derived fields from hand-written ncu
# CSV exports (raw page; two kernels with auto-scaled units and n/a; a
# European locale; the details page); malformed exports are exit 2.
. "$(dirname "$0")/../lib.sh"
D=$CKO_TOP/tests/data/ncu
R=$D/request.json

expect_status profile/csv-raw 0 cko-profile --csv "$D/raw-sgemm.csv" -o "$T/p.json" --summary "$T/s.txt" "$R"
expect_jq profile/csv-head '.tool == "cko-profile" and .status == "ok" and .kernel == "sgemm" and
	.device == "NVIDIA H200" and .case == "square_4096" and .entry == "sgemm" and .missing == []' "$T/p.json"
expect_jq profile/csv-metric-units '.metrics["gpu__time_duration.sum"] == {"value": 2913504, "unit": "nsecond"} and
	.metrics["dram__bytes_read.sum"].value == 201326592 and .metrics["launch__grid_size"].value == 1024' "$T/p.json"
expect_jq profile/csv-derived-sol '.derived | .duration_ms == 2.914 and .sol_compute_pct == 78.42 and
	.sol_memory_pct == 62.31 and .dram_pct == 11.93 and .bound == "compute"' "$T/p.json"
expect_jq profile/csv-derived-occupancy '.derived | .achieved_occupancy_pct == 23.81 and
	.theoretical_occupancy_pct == 25 and .occupancy_limiter == "registers" and
	.occupancy_limits == {"registers": 2, "shared_mem": 13, "warps": 8, "blocks": 32} and
	.registers_per_thread == 128 and .smem_per_block_bytes == 16384' "$T/p.json"
expect_jq profile/csv-derived-stalls '.derived.top_stalls | length == 5 and .[0].reason == "mio_throttle" and
	.[0].cycles_per_issue == 2.95 and .[1].reason == "math_pipe_throttle" and (map(.reason) | index("selected") == null)' "$T/p.json"
expect_jq profile/csv-derived-memory '.derived | .l1_hit_pct == 2.31 and .l2_hit_pct == 86.95 and
	.smem_bank_conflicts == {"load": 262144, "store": 0} and .local_bytes == {"load": 0, "store": 0} and
	.dram_bytes == {"read": 201326592, "write": 67108864} and .global_load_sectors_per_request == 16' "$T/p.json"
lines=$(wc -l <"$T/s.txt")
if [ "$lines" -ge 8 ] && [ "$lines" -le 15 ]; then ok profile/summary-length; else fail profile/summary-length "$lines lines"; fi
expect_grep profile/summary-head '^Nsight Compute profile of kernel sgemm, case square_4096, on NVIDIA H200\.$' "$T/s.txt"
expect_grep profile/summary-occupancy 'limited by registers' "$T/s.txt"
expect_grep profile/summary-stalls '^Top warp stalls .*mio_throttle 2\.95' "$T/s.txt"
expect_grep profile/summary-hint '^Hint: ' "$T/s.txt"

# Two kernels: the request's entry is picked; usecond, Mbyte, Kbyte scaled;
# n/a and absent metrics listed as missing.
cko-profile --csv "$D/raw-two-kernels.csv" -o "$T/two.json" "$R" 2>/dev/null
expect_jq profile/csv-pick-kernel '.kernel == "sgemm" and .derived.block_size == 128 and .derived.grid_size == 4096' "$T/two.json"
expect_jq profile/csv-units '.derived.duration_ms == 1.457 and .derived.dram_bytes == {"read": 100660000, "write": 33554430}' "$T/two.json"
expect_jq profile/csv-missing '(.missing | index("smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio")) != null and
	(.missing | index("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")) != null and
	(.derived | has("smem_bank_conflicts") | not)' "$T/two.json"

cko-profile --csv "$D/raw-eu-locale.csv" -o "$T/eu.json" "$R" 2>/dev/null
expect_jq profile/csv-locale '.derived.duration_ms == 2.914 and .derived.sol_compute_pct == 78.42 and
	.derived.dram_bytes.read == 201326592' "$T/eu.json"
cko-profile --csv "$D/details-long.csv" -o "$T/long.json" "$R" 2>/dev/null
expect_jq profile/csv-details-page '.kernel == "sgemm" and .derived.duration_ms == 2.914 and
	.derived.top_stalls[0].reason == "mio_throttle" and .derived.occupancy_limiter == "registers"' "$T/long.json"
cko-profile --csv "$D/raw-sgemm.csv" >"$T/stdout.json" 2>/dev/null
expect_jq profile/csv-no-request '.kernel == "sgemm" and (has("case") | not)' "$T/stdout.json"

expect_status profile/csv-malformed 2 cko-profile --csv "$D/malformed.csv" -o "$T/x.json" "$R"
expect_grep profile/csv-malformed-named 'malformed.csv: .*unterminated' "$T/last.err"
expect_status profile/csv-no-header 2 cko-profile --csv "$D/no-header.csv" -o "$T/x.json" "$R"
jq '.entry = "other_kernel"' "$R" >"$T/other.json"
expect_status profile/csv-wrong-kernel 2 cko-profile --csv "$D/raw-sgemm.csv" -o "$T/x.json" "$T/other.json"
expect_status profile/bad-request 2 cko-profile --csv "$D/raw-sgemm.csv" -o "$T/x.json" "$T/nothere.json"
expect_status profile/bad-timeout 2 cko-profile --timeout 0 "$R"
expect_status profile/bad-report-name 2 cko-profile --report "$T/r.bin" "$R"
expect_status profile/no-args 2 cko-profile
cko-profile -h >"$T/help" 2>&1
expect_grep profile/help '^usage: cko-profile ' "$T/help"
finish
