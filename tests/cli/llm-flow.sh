# The commands docs/model.md gives the run makefile, end to end against the
# fake server: generating a workload, then one iteration's proposal.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
if ! have_python; then skip llm-flow "no python3"; finish; fi

W=$T/run
export OPENAI_API_KEY=$FAKE_KEY
mkdir -p "$W/workload"
cd "$W" || exit 1
echo "Scale a matrix by two: Y = 2 X, f32, row-major M x N." >workload/description.txt

# The four generation answers, in the order the make rules ask.
jq -n -c --slurpfile s "$LLMDATA/signature.json" '{json: {note: "a signature", signature: ($s[0] | .params |= map(. + {role: (.role // null), shape: (.shape // null)}))}}' >"$T/e1"
jq -n -c '{json: {note: "cases", cases: {inputs: {X: {dist: "uniform"}}, cases: [
	{name: "odd", kind: "correctness", seed: 1, scalars: {M: 7, N: 13}},
	{name: "big", kind: "performance", seed: 2, scalars: {M: 1024, N: 1024}}],
	hidden: {count: 2, scalars: {M: [1, 40], N: [1, 300]}}}}}' >"$T/e2"
answer_json | jq -c '{json: .}' >"$T/e3"
printf '[%s, %s, %s, %s, %s]\n' "$(cat "$T/e1")" "$(cat "$T/e2")" "$(cat "$T/e3")" "$(cat "$T/e3")" "$(cat "$T/e3")" >"$T/script.json"
fake_start "$T/script.json" || finish
fake_config
cp "$T/config.json" config.json
mkdir -p workload/gen iter-000
ASK="cko-llm ask -c config.json"

# signature.json
cko-llm render -t generate-signature -v description=workload/description.txt -o workload/gen/signature-prompt.json
$ASK --transcript workload/gen/signature-transcript.json --usage iter-000/usage-signature.json \
	-o workload/gen/signature-response.json workload/gen/signature-prompt.json
expect_status llm-flow-signature 0 cko-llm extract -w signature -o workload/signature.json workload/gen/signature-response.json
# cases.json
cko-llm render -t generate-cases -v description=workload/description.txt -v signature=workload/signature.json \
	-o workload/gen/cases-prompt.json
$ASK --usage iter-000/usage-cases.json -o workload/gen/cases-response.json workload/gen/cases-prompt.json
if command -v cko-gen >/dev/null 2>&1; then
	expect_status llm-flow-cases 0 cko-llm extract -w cases -s workload/signature.json -o workload/cases.json workload/gen/cases-response.json
	cko-gen --hidden-seed 5 -o cases workload/signature.json workload/cases.json 2>/dev/null
	CASESDIR=cases
else
	skip llm-flow-cases "cko-gen is not built"
	jq .answer.cases workload/gen/cases-response.json >workload/cases.json
	CASESDIR=$LLMDATA/cases
fi
# reference.cu + reference-launch.json
cko-llm render -t generate-reference -v description=workload/description.txt -v signature=workload/signature.json \
	-v cases=workload/cases.json -o workload/gen/reference-prompt.json
$ASK --usage iter-000/usage-reference.json -o workload/gen/reference-response.json workload/gen/reference-prompt.json
expect_status llm-flow-reference 0 cko-llm extract -w reference -s workload/signature.json -C "$CASESDIR" \
	-l workload/reference-launch.json -o workload/reference.cu workload/gen/reference-response.json
# initial.cu + launch.json
cp "$LLMDATA/run/props.json" props.json
cko-llm render -t generate-initial -v description=workload/description.txt -v signature=workload/signature.json \
	-v cases=workload/cases.json -v reference=workload/reference.cu -v gpu=props.json -o workload/gen/initial-prompt.json
$ASK --usage iter-000/usage-initial.json -o workload/gen/initial-response.json workload/gen/initial-prompt.json
expect_status llm-flow-initial 0 cko-llm extract -w initial -s workload/signature.json -C "$CASESDIR" \
	-l workload/launch.json -o workload/initial.cu workload/gen/initial-response.json
expect_eq llm-flow-workload "$(ls workload | tr '\n' ' ')" "cases.json description.txt gen initial.cu launch.json reference-launch.json reference.cu signature.json "
expect_jq llm-flow-generate-usage '.prompt_tokens == 1000' iter-000/usage-initial.json

# One iteration: context (+ meta), render, ask, extract into iter-001/c0.
mkdir -p iter-000/c0 iter-001
cp workload/initial.cu iter-000/c0/kernel.cu
cp workload/launch.json iter-000/c0/launch.json
cp "$LLMDATA/run/iter-000/c0/result.json" iter-000/c0/result.json
# run.mk ranks the iterations before into iter-001/history.json first: the
# context takes the best from there.
expect_status llm-flow-history 0 cko-rank --run . --upto 0 -o iter-001/history.json
cko-llm context --run . --iter 1 -o iter-001/context.md --meta iter-001/meta.json
expect_jq llm-flow-meta '.template == "propose" and .parent == "iter-000/c0"' iter-001/meta.json
cko-llm render -t "$(jq -r .template iter-001/meta.json)" -v context=iter-001/context.md -o iter-001/prompt.json
expect_status llm-flow-ask 0 $ASK --transcript iter-001/transcript.json --usage iter-001/usage.json \
	-o iter-001/response.json iter-001/prompt.json
expect_status llm-flow-extract 0 cko-llm extract -s workload/signature.json -C "$CASESDIR" \
	--parent "$(jq -r '.parent // empty' iter-001/meta.json)" -o iter-001/c0 iter-001/response.json
expect_jq llm-flow-proposal '.status == "ok" and .parent == "iter-000/c0" and .proposer == "cko-llm"' iter-001/c0/proposal.json
fake_stop
CHECK=llm-flow-no-key no_key_in "$W"
finish
