# cko-llm context: the run folder's history as the prompt's input; repair
# after an invalid iteration, propose otherwise; hidden cases by class only.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
RUN=$LLMDATA/run

expect_status llm-context-repair 0 cko-llm context -r "$RUN" -i 2 --which -o "$T/ctx2.md"
expect_eq llm-context-repair-mode "$(cat "$T/last.out")" repair
C=$T/ctx2.md
expect_grep llm-context-description 'Scale a matrix by two' "$C"
expect_grep llm-context-signature '"entry": "scale2d"' "$C"
expect_grep llm-context-visible-case '`odd` \(correctness\): M=7 N=13' "$C"
expect_grep llm-context-hidden-count 'and 1 hidden correctness case that you do not see' "$C"
expect_grep llm-context-gpu 'NVIDIA H200' "$C"
expect_grep llm-context-to-repair 'The candidate to repair: iter-001/c0' "$C"
expect_grep llm-context-stage 'failed at stage \*\*compare\*\*' "$C"
expect_grep llm-context-visible-details '"mismatches":	78' "$C"
expect_grep llm-context-hidden-class 'Failed 1 hidden correctness case: wrong values' "$C"
expect_grep llm-context-bad-source 'BUGGY: rows ignored' "$C"
expect_grep llm-context-best 'best kernel so far: iter-000/c0, geomean 2 ms \(2.00x' "$C"
expect_grep llm-context-history '\| iter-001/c0 \| invalid at compare \|' "$C"
expect_grep llm-context-research 'Vectorized float4 loads' "$C"
# Nothing about the hidden case but its class: no name, no size, no values.
for s in hidden-1 289 288 777.5 578; do
	if grep -q -F -- "$s" "$C"; then fail "llm-context-hides-$s" "'$s' is in the context"; else ok "llm-context-hides-$s"; fi
done

expect_status llm-context-propose 0 cko-llm context -r "$RUN" -i 1 --which -o "$T/ctx1.md"
expect_eq llm-context-propose-mode "$(cat "$T/last.out")" propose
expect_grep llm-context-propose-source 'static __device__ float twice' "$T/ctx1.md"
expect_grep llm-context-propose-timing '\| big \| 2 \| 4 \| 2.00x \|' "$T/ctx1.md"
expect_grep llm-context-propose-compile '16 registers per thread, 0 bytes of spill stores' "$T/ctx1.md"
expect_grep llm-context-propose-profile 'dram__throughput 71.5%' "$T/ctx1.md"
expect_grep llm-context-propose-last 'iter-000/c0: ok, geomean 2 ms \(2.00x the reference\)' "$T/ctx1.md"

expect_status llm-context-meta 0 cko-llm context -r "$RUN" -i 2 --meta "$T/meta2.json"
expect_jq llm-context-meta-repair '. == {template: "repair", parent: "iter-001/c0", iteration: 2}' "$T/meta2.json"
cko-llm context -r "$RUN" -i 1 --meta "$T/meta1.json"
expect_jq llm-context-meta-propose '. == {template: "propose", parent: "iter-000/c0", iteration: 1}' "$T/meta1.json"

# Written only when it changed: make sees no newer file.
touch -d '2001-01-01' "$T/ctx1.md"
cko-llm context -r "$RUN" -i 1 -o "$T/ctx1.md"
expect_eq llm-context-unchanged "$(date -r "$T/ctx1.md" +%Y)" 2001

# The context renders into the propose and repair prompts.
expect_status llm-context-render 0 cko-llm render -t "$(cko-llm context -r "$RUN" -i 2 --which)" -v context="$C" -o "$T/prompt.json"
expect_jq llm-context-render-template '.template == "repair" and .answer == "kernel" and (.messages[1].content | test("The candidate to repair"))' "$T/prompt.json"

# Before any iteration: nothing to show but the workload.
mkdir -p "$T/empty"
expect_status llm-context-empty 0 cko-llm context -r "$T/empty" -i 1 --which -o "$T/ctx0.md"
expect_eq llm-context-empty-mode "$(cat "$T/last.out")" propose
expect_grep llm-context-empty-text 'No candidate has been evaluated yet' "$T/ctx0.md"
cko-llm context -r "$T/empty" -i 1 --meta "$T/meta0.json"
expect_jq llm-context-empty-meta '.parent == null' "$T/meta0.json"
# A budget (context_max_chars, or --max-chars): parts left out whole, the
# least needed first, named in a note; the repair's own material kept.
clen() { jq -Rs length "$1"; }
expect_status llm-context-budget 0 cko-llm context -r "$RUN" -i 2 --max-chars 2400 -o "$T/b2400.md"
expect_eq llm-context-budget-within "$([ "$(clen "$T/b2400.md")" -le 2400 ] && echo yes)" yes
expect_grep llm-context-budget-note 'Left out to keep this context within 2400 characters: The GPU \(props.json\); All candidates so far; Research notes\.\)$' "$T/b2400.md"
expect_grep llm-context-budget-keeps-repair 'The candidate to repair: iter-001/c0' "$T/b2400.md"
expect_grep llm-context-budget-keeps-kernel 'BUGGY: rows ignored' "$T/b2400.md"
expect_grep llm-context-budget-keeps-cases '`odd` \(correctness\): M=7 N=13' "$T/b2400.md"
if grep -q 'Vectorized float4 loads\|NVIDIA H200' "$T/b2400.md"; then
	fail llm-context-budget-left-out "research notes or the GPU are still in $T/b2400.md"
else
	ok llm-context-budget-left-out
fi
# Too little room even so: the end is cut at a line, its code block closed.
cko-llm context -r "$RUN" -i 1 --max-chars 1000 -o "$T/b1000.md"
expect_eq llm-context-budget-cut-within "$([ "$(clen "$T/b1000.md")" -le 1000 ] && echo yes)" yes
expect_grep llm-context-budget-cut-note 'Research notes; and the end of the rest\.\)$' "$T/b1000.md"
expect_eq llm-context-budget-cut-closed "$(($(grep -c '^```' "$T/b1000.md") % 2))" 0
# From the config's model_settings (run.mk passes config.json); the option wins.
echo '{"model_settings": {"context_max_chars": 2400}}' >"$T/cfg.json"
cko-llm context -r "$RUN" -i 2 -c "$T/cfg.json" -o "$T/c2400.md"
expect_eq llm-context-budget-config "$(cmp -s "$T/c2400.md" "$T/b2400.md" && echo same)" same
cko-llm context -r "$RUN" -i 2 -c "$T/cfg.json" --max-chars 0 -o "$T/c0.md"
cko-llm context -r "$RUN" -i 2 -o "$T/full.md"
expect_eq llm-context-budget-zero "$(cmp -s "$T/c0.md" "$T/full.md" && echo same)" same
# Within the budget already: unchanged.
cko-llm context -r "$RUN" -i 2 --max-chars 100000 -o "$T/big.md"
expect_eq llm-context-budget-roomy "$(cmp -s "$T/big.md" "$T/full.md" && echo same)" same
expect_status llm-context-budget-small 2 cko-llm context -r "$RUN" -i 2 --max-chars 999 -o "$T/x.md"
expect_status llm-context-budget-bad 2 cko-llm context -r "$RUN" -i 2 --max-chars 12k -o "$T/x.md"
echo '{"model_settings": {"context_max_chars": 50}}' >"$T/cfg50.json"
expect_status llm-context-budget-config-small 2 cko-llm context -r "$RUN" -i 2 -c "$T/cfg50.json" -o "$T/x.md"
expect_grep llm-context-budget-config-names "cfg50.json: model_settings.context_max_chars: 50 is below 1000" "$T/last.err"

expect_status llm-context-no-run 2 cko-llm context -r "$T/nosuch" -i 1 -o "$T/x.md"
expect_status llm-context-usage 2 cko-llm context -r "$RUN" -o "$T/x.md"
finish
