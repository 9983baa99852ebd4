# history.sh: sourced by tests/cli/tune-*.sh. record HIST DIR ITER [MS]
# appends iteration ITER's candidates in DIR to HIST as result entries, as
# the pipeline would (only the fields cko-tune reads); MS is a jq
# expression over the candidate's defines giving its geomean_ms.
record() {
	_h=$1 _d=$2 _i=$3 _ms=${4:-1}
	[ -f "$_h" ] || echo '{"tool": "cko-rank", "candidates": []}' >"$_h"
	for _c in $(jq -r '.candidates[]' "$_d/proposed.json"); do
		_p=$_d/$_c/proposal.json
		if [ "$(jq -r .status "$_p")" = ok ]; then
			jq --arg id "iter-$_i/$_c" --argjson it "$_i" --slurpfile p "$_p" --slurpfile l "$_d/$_c/launch.json" \
				'.candidates += [{id: $id, iteration: $it, status: "ok", hash: $p[0].hash,
				  variant: $p[0].variant, defines: $l[0].defines,
				  geomean_ms: ($l[0].defines | '"$_ms"')}]' "$_h" >"$_h.tmp"
		else
			jq --arg id "iter-$_i/$_c" --argjson it "$_i" \
				'.candidates += [{id: $id, iteration: $it, status: "skipped", hash: null}]' "$_h" >"$_h.tmp"
		fi
		mv "$_h.tmp" "$_h"
	done
}

# hashes DIR: the hashes proposed in DIR, one a line.
hashes() { cat "$1"/c*/proposal.json | jq -r 'select(.status == "ok") | .hash'; }
