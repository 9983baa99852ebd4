# cko-profile against a fake ncu (a script that checks its argv, writes a
# report and "imports" a fixture CSV): the whole flow without a GPU, and
# the environment failures (no ncu, no counter permission, no kernel,
# metrics this ncu lacks) that must be exit 3 with profile.json saying why.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/out" "$T/keep" # outputs go into existing folders
D=$CKO_TOP/tests/data/ncu
mkdir -p "$T/req" && cp "$D/request.json" "$T/req/square_4096.json"
R=$T/req/square_4096.json
if ! command -v cko-run >/dev/null 2>&1; then skip profile/ncu "cko-run is not built"; finish; fi

cat >"$T/ncu" <<'SH'
#!/bin/sh
# A stand-in for ncu. FAKE_MODE: ok, perm, nokernel, nometric (fails while
# --metrics is given), noreport.
printf '%s\n' "$*" >>"$FAKE_LOG"
for a in "$@"; do [ "$a" = --import ] && { cat "$FAKE_CSV"; exit 0; }; done
out=
while [ $# -gt 0 ]; do
	case $1 in -o) [ -z "$out" ] && out=$2; shift ;; --metrics) metrics=1 ;; esac
	shift
done
echo "==PROF== Connected to process 4242"
case $FAKE_MODE in
perm) echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."; exit 1 ;;
nokernel) echo "==WARNING== No kernels were profiled."; exit 0 ;;
nometric) [ -n "$metrics" ] && { echo "==ERROR== Failed to find metric smsp__bogus"; exit 1; } ;;
noreport) exit 0 ;;
esac
printf 'NCU report' >"$out"
echo "==PROF== Disconnected from process 4242"
SH
chmod +x "$T/ncu"
export FAKE_LOG=$T/log FAKE_CSV=$D/raw-sgemm.csv
# cko-profile runs ncu with an allow-listed environment: name the fake's settings.
export CKO_ENV_ALLOW="FAKE_LOG FAKE_CSV FAKE_MODE"

FAKE_MODE=ok expect_status profile/fake-ok 0 cko-profile --ncu "$T/ncu" -o "$T/out/profile.json" --summary "$T/out/summary.txt" "$R"
expect_jq profile/fake-json '.status == "ok" and .report == "'"$T"'/out/profile.ncu-rep" and .derived.duration_ms == 2.914' "$T/out/profile.json"
expect_grep profile/fake-report-kept '^NCU report$' "$T/out/profile.ncu-rep"
expect_grep profile/fake-summary '^Nsight Compute profile of kernel sgemm' "$T/out/summary.txt"
run=$(head -1 "$T/log")
case $run in
*"--clock-control none "*"--kernel-name sgemm --launch-count 1 --set basic --metrics "*"gpu__time_duration.sum"*) ok profile/fake-argv-options ;;
*) fail profile/fake-argv-options "$run" ;;
esac
case $run in
*"-f "*"/cko-run --no-double --sets 1 --no-write --no-compare -t 135 -o "*"/run.json $R") ok profile/fake-argv-target ;;
*) fail profile/fake-argv-target "$run" ;;
esac
imp=$(sed -n 2p "$T/log")
case $imp in
"--import $T/out/profile.tmp."*".ncu-rep --csv --page raw --print-units base --print-kernel-base function") ok profile/fake-import ;;
*) fail profile/fake-import "$imp" ;;
esac
ls "$T/out" | grep -q tmp && fail profile/fake-no-temporaries "$(ls "$T/out")" || ok profile/fake-no-temporaries

# --report names the report; --save-csv keeps the export.
: >"$T/log"
FAKE_MODE=ok cko-profile --ncu "$T/ncu" -o "$T/p2.json" --report "$T/keep/r.ncu-rep" --save-csv "$T/raw.csv" "$R" 2>/dev/null
expect_grep profile/fake-report-option '^NCU report$' "$T/keep/r.ncu-rep"
if cmp -s "$T/raw.csv" "$D/raw-sgemm.csv"; then ok profile/fake-save-csv; else fail profile/fake-save-csv "differs"; fi
NCU=$T/ncu FAKE_MODE=ok expect_status profile/ncu-env 0 cko-profile -o "$T/p3.json" "$R"

# An ncu without some metric: retried with the full set.
: >"$T/log"
FAKE_MODE=nometric expect_status profile/fake-metric-fallback 0 cko-profile --ncu "$T/ncu" -o "$T/p4.json" "$R"
expect_grep profile/fake-full-set '--set full -o ' "$T/log"
expect_jq profile/fake-fallback-note '.note | test("set full")' "$T/p4.json"

# Environment failures: exit 3, and profile.json and the summary say why.
FAKE_MODE=perm expect_status profile/no-permission 3 cko-profile --ncu "$T/ncu" -o "$T/perm.json" --summary "$T/perm.txt" "$R"
expect_grep profile/no-permission-message 'ERR_NVGPUCTRPERM' "$T/last.err"
expect_jq profile/no-permission-json '.status == "no_permission" and (.message | test("counters"))' "$T/perm.json"
expect_grep profile/no-permission-summary '^No profile: ' "$T/perm.txt"
FAKE_MODE=nokernel expect_status profile/no-kernel 3 cko-profile --ncu "$T/ncu" -o "$T/nk.json" "$R"
expect_jq profile/no-kernel-json '.status == "no_kernel"' "$T/nk.json"
FAKE_MODE=noreport expect_status profile/no-report 3 cko-profile --ncu "$T/ncu" -o "$T/nr.json" "$R"
expect_status profile/no-ncu 3 cko-profile --ncu "$T/nothere/ncu" -o "$T/nn.json" "$R"
expect_jq profile/no-ncu-json '.status == "no_ncu"' "$T/nn.json"
printf '#!/bin/sh\nsleep 30\n' >"$T/slow" && chmod +x "$T/slow"
expect_status profile/timeout 3 cko-profile --ncu "$T/slow" --timeout 1 -o "$T/to.json" "$R"
expect_jq profile/timeout-json '.status == "timeout"' "$T/to.json"
finish
