#!/bin/sh
# mk/stop.sh iter-NNN J...: the records of an iteration the run's budget
# stopped (its history.json says .stop; mk/run.mk): candidate J's
# proposal.json (status "stopped", and why), then iter-NNN/proposed.json.
d=$1
shift
h=$d/history.json
echo "$d: stopped: $(jq -r .stop.reason "$h")"
for j; do
	mkdir -p "$d/c$j" || exit
	jq '{proposer: "budget", status: "stopped", ended: .stop.ended, reason: .stop.reason, parent: null}' \
		"$h" >"$d/c$j/proposal.json" || exit
done
i=$(expr "${d##*iter-}" + 0) || exit
jq -n --argjson i "$i" --arg c "$*" '{tool: "make", iteration: $i, candidates: ($c | split(" ") | map("c" + .)), stopped: true}' \
	>"$d/proposed.json.tmp" && mv "$d/proposed.json.tmp" "$d/proposed.json"
