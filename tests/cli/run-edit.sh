# A candidate edited by hand (docs/run.md, "Editing a candidate"): the next
# make compiles and verifies it again and recomputes history.json and
# summary.json; later iterations keep their proposals, their history and
# the model's responses (nothing is asked again); make -q is true after.
# Fake GPU tools and the fake model server (make mechanics only).
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
fake_run_setup run-edit
fake_run_init "does not compile" \
	"plain copy" \
	"never asked: no response is lost"
mk() { make -C "$run" -f run.mk CKO_BIN="$T/bin" "$@"; }
expect_status run-edit/make 0 mk
expect_jq run-edit/broken-first '.candidates[1].id == "iter-001/c0" and .candidates[1].stage == "compile" and .best == "iter-002/c0"' "$run/history.json"
expect_jq run-edit/skipped-record '.status == "skipped" and .tool == "cko-request" and (.reason | startswith("compile: "))' "$run/iter-001/c0/requests/index.json"
expect_eq run-edit/two-requests "$(nreq)" 2

# What must stay: iteration 2's history, prompt, response and proposal.
keep="iter-002/history.json iter-002/context.md iter-002/prompt.json iter-002/response-0.json iter-002/c0/kernel.cu iter-002/c0/proposal.json iter-002/c0/result.json"
mkdir kept
for f in $keep; do mkdir -p "kept/$(dirname "$f")"; cp -p "$run/$f" "kept/$f"; done

# The user fixes iteration 1's kernel by hand, and makes it the fastest.
printf '// FAKE: ok time=0.25\n%s\n' "$RUN_COPY" >"$run/iter-001/c0/kernel.cu"
expect_status run-edit/remake 0 mk
expect_jq run-edit/recompiled '.status == "ok" and .source == "iter-001/c0/kernel.cu"' "$run/iter-001/c0/compile.json"
expect_jq run-edit/reverified '.status == "ok"' "$run/iter-001/c0/run.json"
expect_jq run-edit/recompared '.status == "ok"' "$run/iter-001/c0/compare.json"
expect_jq run-edit/history-recomputed '.candidates[1].status == "ok" and .candidates[1].geomean_ms == 0.25 and .best == "iter-001/c0"' "$run/history.json"
expect_jq run-edit/summary-recomputed '.best == "iter-001/c0"' "$run/summary.json"
grep -q 'time=0.25' "$run/best.cu" && ok run-edit/best-cu || fail run-edit/best-cu "best.cu is not the edited kernel"
expect_eq run-edit/no-reask "$(nreq)" 2
bad=
for f in $keep; do cmp -s "kept/$f" "$run/$f" || bad="$bad $f"; done
[ -z "$bad" ] && ok run-edit/later-iterations-kept || fail run-edit/later-iterations-kept "changed:$bad"
expect_status run-edit/question-up-to-date 0 mk -q

# launch.json edited by hand: the candidate is compiled and verified again too.
jq '.defines.BLOCK = 128' "$run/iter-002/c0/launch.json" >l.json && cp l.json "$run/iter-002/c0/launch.json"
before=$(stat -c %Y "$run/iter-002/c0/requests/index.json")
sleep 1
expect_status run-edit/remake-launch 0 mk
[ "$(stat -c %Y "$run/iter-002/c0/requests/index.json")" != "$before" ] && ok run-edit/launch-reapplied ||
	fail run-edit/launch-reapplied "requests/index.json not made again"
expect_eq run-edit/still-no-reask "$(nreq)" 2
expect_status run-edit/question-after-launch 0 mk -q
fake_stop
finish
