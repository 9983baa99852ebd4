# The memory across runs: an ended run's verified best kernel,
# launch rules, signature shape and helpful notes go into the store
# (CKO_MEMORY_DIR, here under the test's folder), one JSON file per run;
# runs without a valid best or with candidates outside the sandbox are
# refused; cko-docs --memory retrieves the most similar entries and a model
# run's prompt shows them; --no-memory and --memory-clear.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
have_python || { skip run-memory "no python3"; finish; }
D=$DATA/run
cd "$T" || exit 1
fake_gpu_bin "$T/bin"
export CKO_LOCK_DIR=$T/locks OPENAI_API_KEY=$FAKE_KEY CKO_MEMORY_DIR=$T/memory
mk() { d=$1; shift; make -C "$d" -f run.mk CKO_BIN="$T/bin" "$@"; }
entries() { ls "$CKO_MEMORY_DIR" 2>/dev/null | grep -c '^run-.*\.json$'; }
tune_run() {
	r=$1; shift
	cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
		--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
		--space "$D/space.json" --max-iterations 4 --seed 7 --hidden-seed 11 --description "copy a float array" \
		--results "$r" "$@"
}

a=$(tune_run "$T/a")
expect_grep run-memory/run-mk '^MEMORY      := 1$' "$a/run.mk"
expect_status run-memory/make 0 mk "$a"
expect_eq run-memory/one-entry "$(entries)" 1
E=$(ls "$CKO_MEMORY_DIR"/run-*.json)
expect_jq run-memory/entry-best ".best == \"$(jq -r .best "$a/summary.json")\" and .run == \"$(cd "$a" && pwd -P)\"" "$E"
jq -j .kernel "$E" >kernel.cu
cmp -s kernel.cu "$a/best.cu" && ok run-memory/entry-kernel || fail run-memory/entry-kernel "the kernel differs from best.cu"
expect_eq run-memory/entry-launch "$(jq -cS .launch "$E")" "$(jq -cS . "$a/best-launch.json")"
expect_jq run-memory/entry-shape '.shape == "copy(in f32 buffer x, out f32 buffer y, scalar i32 scalar n)" and .description == "copy a float array" and .signature.entry == "copy"' "$E"
expect_jq run-memory/entry-notes '.notes == ["copy BLOCK=32", "copy BLOCK=64", "copy BLOCK=128", "copy BLOCK=256"]' "$E"
expect_jq run-memory/entry-numbers '.best_geomean_ms == 1 and .speedup_vs_reference == 10 and .gpu == "Fake GPU"' "$E"
ls "$CKO_MEMORY_DIR" | grep -v '^run-[0-9a-f]*\.json$' >stray.txt
[ ! -s stray.txt ] && ok run-memory/no-temporaries || fail run-memory/no-temporaries "$(cat stray.txt)"
# The same run again replaces its entry.
expect_status run-memory/re-add 0 cko-docs --memory-add "$a"
expect_eq run-memory/still-one "$(entries)" 1
expect_jq run-memory/first-best-later '.best != "iter-001/c0" and .best_geomean_ms == 1' "$a/summary.json"

# A second run of the same workload starts from the remembered best:
# iteration 1's c0 is that kernel (same bytes, same launch rules, proposer
# memory), the tuner's other candidates come after it, and after iteration 1
# its best is the first run's best. (Its own entry goes to a copy of the store.)
cp -r "$CKO_MEMORY_DIR" mem-s
s=$(tune_run "$T/s" --candidates 2)
expect_status run-memory/second-make 0 env CKO_MEMORY_DIR="$T/mem-s" make -C "$s" -f run.mk CKO_BIN="$T/bin" ITER=1
id=$(basename "$E" .json)
expect_jq run-memory/seed ".status == \"ok\" and .entry == \"$id\" and .match == \"signature\" and .run == \"$(cd "$a" && pwd -P)\"" "$s/memory-seed.json"
cmp -s "$s/iter-001/c0/kernel.cu" "$a/best.cu" && ok run-memory/c0-same-bytes || fail run-memory/c0-same-bytes "iter-001/c0/kernel.cu differs from the first run's best.cu"
expect_eq run-memory/c0-same-launch "$(jq -cS . "$s/iter-001/c0/launch.json")" "$(jq -cS . "$a/best-launch.json")"
expect_jq run-memory/c0-proposal ".proposer == \"memory\" and .status == \"ok\" and .memory == \"$id\" and .parent == null and (.note | test(\"memory entry $id\"))" "$s/iter-001/c0/proposal.json"
expect_jq run-memory/c0-history ".candidates[] | select(.id == \"iter-001/c0\") | .proposer == \"memory\" and .memory == \"$id\" and .status == \"ok\"" "$s/history.json"
expect_jq run-memory/c1-tuner '.proposer == "cko-tune" and .status == "ok"' "$s/iter-001/c1/proposal.json"
[ "$(jq -r .hash "$s/iter-001/c1/result.json")" != "$(jq -r .hash "$s/iter-001/c0/result.json")" ] &&
	ok run-memory/c1-other || fail run-memory/c1-other "c1 is the remembered kernel again"
expect_jq run-memory/manifest-memory ".memory == \"$id\" and .candidates == [\"c0\", \"c1\"]" "$s/iter-001/proposed.json"
expect_eq run-memory/second-best-iter1 "$(jq .best_geomean_ms "$s/summary.json")" "$(jq .best_geomean_ms "$a/summary.json")"
expect_jq run-memory/second-best-is-c0 '.best == "iter-001/c0"' "$s/summary.json"
# Later iterations search around it; make again makes nothing new.
expect_status run-memory/second-more 0 env CKO_MEMORY_DIR="$T/mem-s" make -C "$s" -f run.mk CKO_BIN="$T/bin" ITER=2
expect_jq run-memory/iter2-fresh '[.candidates[] | select(.id | startswith("iter-002/")) | .status] | all(. == "ok" or . == "skipped")' "$s/history.json"
expect_status run-memory/second-complete 0 env CKO_MEMORY_DIR="$T/mem-s" make -q -C "$s" -f run.mk CKO_BIN="$T/bin" ITER=2

# An entry that records no verified best is not used; the tuner proposes c0.
mkdir mem-bad
jq '.best = null | del(.best_geomean_ms)' "$E" >mem-bad/run-00000000000000bb.json
v=$(tune_run "$T/v")
expect_status run-memory/invalid-entry-make 0 env CKO_MEMORY_DIR="$T/mem-bad" make -C "$v" -f run.mk CKO_BIN="$T/bin" ITER=1
expect_jq run-memory/invalid-entry-none '.status == "none" and .skipped == [{entry: "run-00000000000000bb", reason: "no verified best"}]' "$v/memory-seed.json"
expect_jq run-memory/invalid-entry-tuner '.proposer == "cko-tune"' "$v/iter-001/c0/proposal.json"

# A remembered kernel that is garbage is an invalid candidate (compile), and
# the run goes on.
mkdir mem-garbage
jq '.kernel = "this is not CUDA {{{\n" | .run = "/elsewhere/run-010"' "$E" >mem-garbage/run-00000000000000cc.json
g=$(tune_run "$T/g" --candidates 2)
expect_status run-memory/garbage-make 0 env CKO_MEMORY_DIR="$T/mem-garbage" make -C "$g" -f run.mk CKO_BIN="$T/bin" ITER=2
expect_jq run-memory/garbage-invalid '.proposer == "memory" and .status == "invalid" and .stage == "compile" and (.reason | length > 0)' "$g/iter-001/c0/result.json"
expect_jq run-memory/garbage-goes-on '.best != null and .best != "iter-001/c0" and .counts.ok >= 3' "$g/summary.json"

# Not remembered: --no-memory, a run with no verified best, a run outside the sandbox.
b=$(tune_run "$T/b" --no-memory)
expect_grep run-memory/no-memory-mk '^MEMORY      := 0$' "$b/run.mk"
expect_status run-memory/no-memory-make 0 mk "$b"
[ ! -e "$b/memory-seed.json" ] && ok run-memory/no-memory-no-seed || fail run-memory/no-memory-no-seed "memory-seed.json made"
expect_jq run-memory/no-memory-c0-tuner '.proposer == "cko-tune"' "$b/iter-001/c0/proposal.json"
expect_eq run-memory/no-memory-none "$(entries)" 1
cp -r "$a" x
jq '.best = null' "$a/summary.json" >x/summary.json
expect_status run-memory/invalid-refused 1 cko-docs --memory-add x
expect_grep run-memory/invalid-why 'no verified best' "$T/last.err"
jq '.candidates |= map(if .id == "iter-004/c0" then .status = "invalid" else . end)' "$a/history.json" >x/history.json
cp "$a/summary.json" x/summary.json
expect_status run-memory/invalid-best-refused 1 cko-docs --memory-add x
jq '.sandbox = ["off (--no-sandbox)"]' "$a/summary.json" >x/summary.json
cp "$a/history.json" x/history.json
expect_status run-memory/unsandboxed-refused 1 cko-docs --memory-add x
expect_grep run-memory/unsandboxed-why 'without the sandbox' "$T/last.err"
expect_eq run-memory/refused-none "$(entries)" 1

# Retrieval by similarity: a remembered reduction ranks below the copy.
jq '.run = "/elsewhere/run-009" | .workload = "reduce_sum" | .shape = "reduce_sum(in f32 buffer x, out f32 buffer out, scalar i32 scalar n)"
	| .description = "sum of all elements, a tree reduction in shared memory" | .notes = ["warp shuffle reduction"]
	| .kernel = "// the reduction\n"' "$E" >"$CKO_MEMORY_DIR/run-00000000000000aa.json"
expect_status run-memory/search 0 cko-docs --memory "copy x y n copy a float array" -n 1 -o hits.md
expect_grep run-memory/search-copy '^## Example 1: custom, copy\(' hits.md
grep -q 'reduction' hits.md && fail run-memory/search-one "the reduction was shown" || ok run-memory/search-one
expect_status run-memory/search-sum 0 cko-docs --memory "tree reduction sum" -n 1 -o hits2.md
expect_grep run-memory/search-reduce '^## Example 1: reduce_sum' hits2.md
expect_status run-memory/exclude 0 cko-docs --memory "copy a float array" --exclude "$a" -n 5 -o hits3.md
grep -q 'custom, copy' hits3.md && fail run-memory/exclude-own "the run's own entry shown" || ok run-memory/exclude-own

# A model run of the same workload sees the remembered copy as an example.
jq -n -c --rawfile k "$a/best.cu" --slurpfile l "$LLMDATA/launch-wire.json" '[{json: {note: "from memory", kernel: $k, launch: $l[0]}}]' >script.json
fake_start "$T/script.json" || finish
fake_config
jq '{max_iterations: 1, candidates: 2, model_settings: .}' "$T/config.json" >cfg.json
m=$(init_test_run --config cfg.json --hidden-seed 3 --description "copy a float array" --results "$T/m")
expect_status run-memory/llm-make 0 mk "$m"
jq -r '.messages[-1].content' "$m/iter-001/prompt.json" >prompt1.txt
expect_grep run-memory/prompt-examples '^## Examples from earlier runs' prompt1.txt
expect_grep run-memory/prompt-example-copy '^## Example 1: custom, copy\(' prompt1.txt
expect_grep run-memory/prompt-example-notes '^- copy BLOCK=256$' prompt1.txt
# ... and as iteration 1's c0, which the model is not asked for: its one
# answer is c1.
expect_grep run-memory/prompt-seed-c0 '^Example 1 is the remembered best for this signature: it is this iteration.s candidate c0' prompt1.txt
expect_jq run-memory/llm-seed ".status == \"ok\" and .entry == \"$id\"" "$m/memory-seed.json"
expect_jq run-memory/llm-c0-not-asked '.status == "memory"' "$m/iter-001/response-0.json"
[ ! -e "$m/iter-001/transcript-0.json" ] && ok run-memory/llm-c0-no-transcript || fail run-memory/llm-c0-no-transcript "the model was asked for c0"
expect_jq run-memory/llm-c0 ".proposer == \"memory\" and .memory == \"$id\"" "$m/iter-001/c0/proposal.json"
cmp -s "$m/iter-001/c0/kernel.cu" "$a/best.cu" && ok run-memory/llm-c0-bytes || fail run-memory/llm-c0-bytes "c0 differs from the remembered kernel"
expect_jq run-memory/llm-c1-model '.note == "from memory" and .proposer != "memory"' "$m/iter-001/c1/proposal.json"
expect_jq run-memory/llm-c0-verified '.candidates[] | select(.id == "iter-001/c0") | .status == "ok" and .geomean_ms == 1' "$m/history.json"
fake_stop
expect_eq run-memory/llm-remembered "$(entries)" 3

# Clearing
expect_status run-memory/clear 0 cko-docs --memory-clear
expect_eq run-memory/cleared "$(entries)" 0
finish
