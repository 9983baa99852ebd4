# The --sanitize gate with the real compute-sanitizer. A run on
# the adversarial sgemm cases whose initial kernel is the slow double
# reference and whose one proposal (racy_but_works.cu) passes every check
# of cko-run and cko-compare but has a shared-memory race: the proposal is
# the fastest verified candidate, racecheck must reject it, and the best
# must then be the clean initial kernel. cko-sanitize on single requests:
# the honest kernel clean, the racy one errors under racecheck.
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/sanitize "no GPU"; finish; fi
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)}
if [ -z "$CS" ]; then skip gpu/sanitize "no compute-sanitizer"; finish; fi
A=$CKO_TOP/tests/adversarial
W=$CKO_TOP/workloads/sgemm
P=$T/proposals/iter-001/c0
mkdir -p "$P"
cp "$CKO_TOP/tests/gpu/kernels/racy_but_works.cu" "$P/kernel.cu"
cp "$A/naive-launch.json" "$P/launch.json"
run=$(cko-init --signature "$W/signature.json" --input-cases "$A/cases.json" --reference "$W/reference.cu" \
	--reference-launch "$W/reference-launch.json" --initial-kernel "$W/reference.cu" \
	--launch "$W/reference-launch.json" --proposals "$T/proposals" --candidates 1 --max-iterations 1 \
	--timeout 5 --sanitize --results "$T/results") || { fail gpu/sanitize-init "cko-init failed"; finish; }
start=$(date +%s)
expect_status gpu/sanitize-run 0 make -C "$run" -f run.mk
echo "info gpu/sanitize: the run took $(( $(date +%s) - start )) s"
H=$run/history.json S=$run/sanitize.json
echo "info gpu/sanitize: candidates $(jq -c '[.candidates[] | {id, status, stage, reason: ((.reason // "") | .[0:200]), geomean_ms}]' "$H")"
expect_jq gpu/sanitize-racy-verified '.candidates[1].id == "iter-001/c0" and .candidates[1].status == "ok"' "$H"
expect_jq gpu/sanitize-racy-fastest '.candidates[1].geomean_ms < .candidates[0].geomean_ms' "$H"
expect_jq gpu/sanitize-racy-rejected '.rejected == ["iter-001/c0"] and .passed == "iter-000/c0" and .status == "ok"' "$S"
expect_jq gpu/sanitize-race-named '[.checked[0].checks[] | select(.tool == "racecheck") | .status] | any(. == "errors")' "$S"
expect_jq gpu/sanitize-summary '.sanitizer.status == "ok" and .sanitizer.rejected == ["iter-001/c0"] and .best == "iter-000/c0"' \
	"$run/summary.json"
cmp -s "$run/iter-000/c0/kernel.cu" "$run/best.cu" && ok gpu/sanitize-best-clean || fail gpu/sanitize-best-clean "best.cu is not the clean kernel"
echo "info gpu/sanitize: $(jq -c '[.checked[] | {id, checks: [.checks[] | {tool, status, log: .log[0:160]}]}]' "$S")"
# single requests
r=$run/iter-001/c0/requests/square_64.json
expect_status gpu/sanitize-request-racy 1 cko-sanitize --tools racecheck -o "$T/racy.json" "$r"
expect_jq gpu/sanitize-request-racy-errors '.status == "errors"' "$T/racy.json"
expect_status gpu/sanitize-request-clean 0 cko-sanitize -o "$T/clean.json" "$run/iter-000/c0/requests/square_64.json"
expect_jq gpu/sanitize-request-clean-json '.status == "clean" and (.checks | length) == 2' "$T/clean.json"
finish
