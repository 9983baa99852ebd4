# Every built-in workload on the GPU: a run with no iterations
# generates the cases, runs the reference on all of them (its outputs are the
# expected ones, checked non-degenerate) and evaluates the initial kernel,
# which must pass every case, hidden ones included. Fewer timed launches
# than a real run: this checks agreement, not speed.
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/workloads "no GPU"; finish; fi
for w in ${CKO_WORKLOADS:-sgemm reduce_sum softmax transpose layernorm}; do
	run=$(cko-init --workload "$w" --max-iterations 0 --results "$T/$w") || { fail "gpu/workload-$w" "cko-init failed"; continue; }
	start=$(date +%s)
	if timeout "${CKO_WORKLOAD_TIMEOUT:-45}" make -C "$run" -f run.mk WARMUP=1 TIMED=3 >"$T/$w.log" 2>&1; then
		r=$(jq -c '.candidates[0] | {status, stage, reason}' "$run/history.json")
		echo "info gpu/workload-$w: $(( $(date +%s) - start )) s; initial: $r; reference: $(jq -c .reference.median_ms "$run/history.json")"
		expect_jq "gpu/workload-$w-initial-agrees" '.candidates[0].status == "ok"' "$run/history.json"
		expect_jq "gpu/workload-$w-hidden-ran" '[.candidates[0].cases[] | select(.hidden)] | length > 0 and all(.status == "ok")' "$run/history.json"
	else
		fail "gpu/workload-$w" "after $(( $(date +%s) - start )) s: $(tail -8 "$T/$w.log")"
		echo "info gpu/workload-$w: files: $(cd "$run" && ls -d cases/*/expected/* iter-000/c0/*.json reference/*.json 2>/dev/null | tr '\n' ' ' | head -c 600)"
	fi
	[ -n "$CKO_KEEP_LOGS" ] && cp "$T/$w.log" "$CKO_KEEP_LOGS/workload-$w.log" && cp "$run/history.json" "$CKO_KEEP_LOGS/workload-$w-history.json"
	rm -rf "$run" # gigabytes of inputs and outputs
done
finish
