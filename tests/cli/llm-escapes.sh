# A model's note with terminal controls (ESC sequences, other C0 controls
# but newline and tab, C1 controls) is stored in
# proposal.json and history.json, and shown by the tools, with them visible
# as \xNN or \u00NN: never raw, never dropped.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
cd "$T" || exit 1
SIG=$LLMDATA/signature.json
CASES=$LLMDATA/cases
# ESC [2J (clear), ESC ]0; title BEL, CR, a C1 CSI (U+009B), DEL; newline and tab stay.
note=$(printf 'hi \033[2J\033]0;pwned\007 x\r\302\233y \177 tab\there\nline2')
jq -n --rawfile k "$LLMDATA/kernel.cu" --slurpfile l "$LLMDATA/launch.json" --arg n "$note" \
	'{tool: "cko-llm", status: "ok", model: "fake-model", answer: {note: $n, kernel: $k, launch: $l[0]}}' >response.json
stored='hi \x1b[2J\x1b]0;pwned\x07 x\x0d\u009by \x7f tab	here
line2'
expect_status escapes-extract 0 cko-llm extract -s "$SIG" -C "$CASES" -o c response.json
expect_eq escapes-note-stored "$(jq -r .note c/proposal.json)" "$stored"
if LC_ALL=C grep -q "$(printf '[\033\007\r\177]')" c/proposal.json; then fail escapes-no-raw-control "raw control in proposal.json"; else ok escapes-no-raw-control; fi
# cko-rank copies notes (a hand-written note.txt too) into result.json, and
# its messages show controls visibly.
mkdir -p run/iter-001/c0
jq -n --arg n "$(printf 'skip \033[31mred\033[0m')" '{proposer: "manual", status: "none", note: $n, parent: null}' >run/iter-001/c0/proposal.json
CKO_QUIET= expect_status escapes-rank-skip 0 cko-rank --candidate run/iter-001/c0 -o run/iter-001/c0/result.json
expect_eq escapes-rank-result "$(jq -r .note run/iter-001/c0/result.json)" 'skip \x1b[31mred\x1b[0m'
expect_grep escapes-rank-message 'skip \\x1b\[31mred\\x1b\[0m' "$T/last.err"
if LC_ALL=C grep -q "$(printf '\033')" "$T/last.err"; then fail escapes-rank-no-raw "raw ESC on stderr"; else ok escapes-rank-no-raw; fi
# Any tool's message that quotes such text shows it.
printf '{"\033[2Jb": 2}' >bad.json
expect_status escapes-message 2 cko-request -s "$SIG" -l bad.json -b x -c "$CASES" -o r
expect_grep escapes-message-visible '\\x1b\[2Jb: unknown key' "$T/last.err"
# cko-rank --print shows a summary's strings so.
echo '{"workload": "w\u001b[2J", "gpu": "g\u009b", "proposer": "p", "best": null, "counts": {}}' >summary.json
expect_status escapes-print 0 cko-rank --print summary.json
expect_grep escapes-print-visible '^w\\x1b\[2J on g\\u009b \(proposer p\)' "$T/last.out"
finish
