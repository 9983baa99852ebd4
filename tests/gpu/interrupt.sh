# Interruption on the GPU: a real run (the real cko-props,
# cko-run, cko-bench; the small copy workload of tests/data/run, tuned
# exhaustively so the proposals do not depend on timings) is killed with
# -9 at 20 random points and resumed each time; at the end its history must
# be an uninterrupted twin's (the same candidates, hashes, verdicts and
# stages), its best the fastest verified candidate of its own history, and
# no JSON file half written. The kill points come from CKO_KILL_SEED (printed).
# CKO_MAKE_ARGS: more make arguments (CKO_BIN=... to try it with the fake
# GPU tools of tests/fake-gpu).
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/interrupt "no GPU"; finish; fi
D=$DATA/run
cd "$T" || exit 1
export CKO_LOCK_DIR=$T/locks
new_run() {
	cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
		--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
		--space "$D/space.json" --strategy exhaustive --candidates 2 --max-iterations 3 --seed 7 \
		--hidden-seed 11 --no-memory --results "$1"
}
# What does not depend on timings: each candidate's identity and verdict.
verdicts() { jq -S '[.candidates[] | {id, hash, status, stage, defines}]' "$1"; }

ref=$(new_run "$T/twin") || { fail gpu/interrupt-init "cko-init failed"; finish; }
s0=$(date +%s)
make -C "$ref" -f run.mk $CKO_MAKE_ARGS >"$T/twin.log" 2>&1 || { fail gpu/interrupt-twin "$(tail -5 "$T/twin.log")"; finish; }
twin_s=$(( $(date +%s) - s0 ))
echo "info gpu/interrupt: uninterrupted run $twin_s s"

run=$(new_run "$T/killed")
seed=${CKO_KILL_SEED:-$(date +%s)}
echo "info gpu/interrupt: CKO_KILL_SEED=$seed"
# 20 kill points all along the run: kill i comes a random 0-1 s after the
# run has written its k_i-th JSON file, k_i random in [0, 95% of what the
# twin wrote)
files() { find "$1" -name '*.json' ! -name '*.tmp*' | wc -l; }
total=$(files "$ref")
points=$(awk -v s="$seed" -v n="$total" 'BEGIN { srand(s); for (i = 0; i < 20; i++) printf "%d:%.1f\n", rand() * n * 0.95, rand() }' | sort -n)
echo "info gpu/interrupt: kill points (JSON files written:delay)" $points
n=0
for p in $points; do
	setsid make -C "$run" -f run.mk $CKO_MAKE_ARGS >>"$T/killed.log" 2>&1 &
	pid=$!
	while [ "$(files "$run")" -lt "${p%:*}" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	sleep "${p#*:}"
	# (dash's kill takes no --); the GPU tools die with make (one group)
	kill -9 -"$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ $? -eq 137 ] && n=$((n + 1)) # make died of the SIGKILL, not done before it
done
echo "info gpu/interrupt: $n of 20 kills landed in a running make; $(ls -d "$run"/iter-*/c*/result.json 2>/dev/null | wc -l) results on disk before the resume"
[ "$n" -ge 15 ] && ok gpu/interrupt-kills-landed || fail gpu/interrupt-kills-landed "only $n of 20 kills landed in a running make"
expect_status gpu/interrupt-resume 0 make -C "$run" -f run.mk $CKO_MAKE_ARGS
verdicts "$ref/history.json" >v1.json
verdicts "$run/history.json" >v2.json
cmp -s v1.json v2.json && ok gpu/interrupt-same-history || fail gpu/interrupt-same-history "$(diff v1.json v2.json | head -20)"
expect_jq gpu/interrupt-all-verified '[.candidates[] | .status] | all(. == "ok")' "$run/history.json"
# best: the fastest verified candidate of its own history, and its source
expect_jq gpu/interrupt-best-fastest '([.candidates[] | select(.status == "ok")] | min_by(.geomean_ms) | .id) == .best' "$run/history.json"
b=$(jq -r .best "$run/history.json")
cmp -s "$run/$b/kernel.cu" "$run/best.cu" && ok gpu/interrupt-best-source || fail gpu/interrupt-best-source "best.cu is not $b/kernel.cu"
echo "info gpu/interrupt: best $b ($(jq -c --arg b "$b" '.candidates[] | select(.id == $b) | .defines' "$run/history.json")), twin's $(jq -r .best "$ref/history.json")"
bad=
for f in $(find "$run" -name '*.json' ! -name '*.tmp*'); do jq -e . "$f" >/dev/null 2>&1 || bad="$bad $f"; done
[ -z "$bad" ] && ok gpu/interrupt-no-half-files || fail gpu/interrupt-no-half-files "malformed:$bad"
left=$(find "$run" -name '*.tmp*' | wc -l)
echo "info gpu/interrupt: $left temporary files left by kill -9 (never taken as done)"
expect_status gpu/interrupt-complete 0 make -C "$run" -f run.mk $CKO_MAKE_ARGS -q
finish
