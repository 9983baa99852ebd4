# cko-llm render: templates with {{name}} placeholders into prompt.json,
# written only when the content changed.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"

cat >"$T/t.md" <<'TMPL'
{{! a comment line that goes away }}
You are a test. {{> part}}
--- user ---
Kernel: {{kernel}}
Literal {{1, 2}} and {{not a placeholder stay.
Name: {{ name }}
TMPL
printf 'from the partial\n' >"$T/part.md"
printf 'int a[2][2] = {{1, 2}, {3, 4}}; // {{name}}\n' >"$T/k.cu"
expect_status llm-render-ok 0 cko-llm render -t "$T/t.md" -v kernel="$T/k.cu" -s name=world -o "$T/p.json"
P=$T/p.json
expect_jq llm-render-split '[.messages[].role] == ["system", "user"] and .template == "t" and .answer == "kernel"' "$P"
expect_jq llm-render-system '.messages[0].content == "You are a test. from the partial\n"' "$P"
expect_jq llm-render-user '.messages[1].content == "Kernel: int a[2][2] = {{1, 2}, {3, 4}}; // {{name}}\nLiteral {{1, 2}} and {{not a placeholder stay.\nName: world\n"' "$P"
expect_jq llm-render-schema '.schema.name == "cko_kernel_answer" and .schema.strict == true and .schema.schema.required == ["note", "kernel", "launch"]' "$P"
expect_jq llm-render-fenced '.fenced_instructions | test("```cuda")' "$P"

# Unchanged: the file is left alone (make sees nothing newer); changed: rewritten.
touch -d '2001-01-01' "$P"
cko-llm render -t "$T/t.md" -v kernel="$T/k.cu" -s name=world -o "$P"
expect_eq llm-render-unchanged "$(date -r "$P" +%Y)" 2001
cko-llm render -t "$T/t.md" -v kernel="$T/k.cu" -s name=moon -o "$P"
expect_eq llm-render-changed "$(date -r "$P" +%Y)" "$(date +%Y)"

expect_status llm-render-missing-var 2 cko-llm render -t "$T/t.md" -s name=x -o "$T/q.json"
expect_grep llm-render-missing-var-named 't.md: line 4: no value for \{\{kernel\}\}' "$T/last.err"
expect_eq llm-render-missing-no-file "$(test -e "$T/q.json" && echo yes || echo no)" no
expect_status llm-render-missing-file 2 cko-llm render -t "$T/t.md" -v kernel="$T/nosuch" -s name=x -o "$T/q.json"
expect_status llm-render-twice 2 cko-llm render -t "$T/t.md" -v kernel="$T/k.cu" -s name=x -s name=y -o "$T/q.json"
expect_status llm-render-bad-kind 2 cko-llm render -t "$T/t.md" -a banana -v kernel="$T/k.cu" -s name=x -o "$T/q.json"
expect_status llm-render-no-template 2 cko-llm render -t nosuch-template -o "$T/q.json"
printf '{{> nosuch}}\n' >"$T/bad.md"
expect_status llm-render-no-partial 2 cko-llm render -t "$T/bad.md" -o "$T/q.json"

# No split line: one user message. --no-schema and -a.
printf 'Just {{x}}.\n' >"$T/u.md"
expect_status llm-render-user-only 0 cko-llm render -t "$T/u.md" -s x=this --no-schema -a initial -o "$T/u.json"
expect_jq llm-render-user-only-msgs '[.messages[].role] == ["user"] and .messages[0].content == "Just this.\n" and (has("schema") | not) and .answer == "initial"' "$T/u.json"
echo '{"name": "mine", "strict": false, "schema": {"type": "object"}}' >"$T/s.json"
expect_status llm-render-own-schema 0 cko-llm render -t "$T/u.md" -s x=this --schema "$T/s.json" -o "$T/u.json"
expect_jq llm-render-own-schema-used '.schema.name == "mine"' "$T/u.json"

# Every template of prompts/ renders with the variables it documents.
printf 'Scale a matrix.\n' >"$T/d.txt"
printf '{"cases": []}\n' >"$T/cases.json"
V="-v description=$T/d.txt -v signature=$LLMDATA/signature.json -v cases=$T/cases.json -v reference=$LLMDATA/kernel.cu -v gpu=$LLMDATA/run/props.json"
for t in generate-signature:signature generate-cases:cases generate-reference:reference generate-initial:initial propose:kernel repair:kernel; do
	tn=${t%:*} kind=${t#*:}
	case $tn in
	generate-signature) vars="-v description=$T/d.txt" ;;
	generate-cases) vars="-v description=$T/d.txt -v signature=$LLMDATA/signature.json" ;;
	generate-reference) vars="-v description=$T/d.txt -v signature=$LLMDATA/signature.json -v cases=$T/cases.json" ;;
	generate-initial) vars=$V ;;
	*) vars="-s context=CONTEXT" ;;
	esac
	# shellcheck disable=SC2086
	expect_status "llm-render-$tn" 0 cko-llm render -t "$tn" $vars -o "$T/$tn.json"
	expect_jq "llm-render-$tn-kind" ".answer == \"$kind\" and .template == \"$tn\" and ([.messages[].role] == [\"system\", \"user\"])
		and (.messages[0].content | test(\"expert CUDA performance engineer\")) and (has(\"schema\")) and (has(\"fenced_instructions\"))" "$T/$tn.json"
	expect_jq "llm-render-$tn-expanded" '[.messages[].content | test("\\{\\{")] == [false, false]' "$T/$tn.json"
done
expect_jq llm-render-signature-schema '.schema.name == "cko_signature_answer"' "$T/generate-signature.json"
expect_jq llm-render-cases-schema '.schema.name == "cko_cases_answer" and .schema.strict == false' "$T/generate-cases.json"
expect_jq llm-render-propose-rules '.messages[1].content | test("extern \"C\" __global__ void ENTRY") and test("CONTEXT")' "$T/propose.json"
finish
