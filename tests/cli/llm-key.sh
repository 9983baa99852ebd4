# The API key: from OPENAI_API_KEY, else a .env file ($CKO_DOTENV, else the
# current folder's, else the repository root's: the top of the git work tree
# the current folder is in; no folder in between or above); never in any
# file or message.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/o" # outputs go into existing folders
if ! have_python; then skip llm-key "no python3"; finish; fi

cko-llm render -t propose -s context="x" -o "$T/prompt.json" 2>/dev/null
OK=$(answer_json | jq -c '{json: .}')
printf '[%s, %s, %s, %s, %s, %s, %s, %s, %s, %s]\n' "$OK" "$OK" "$OK" "$OK" "$OK" "$OK" "$OK" "$OK" "$OK" "$OK" >"$T/script.json"
fake_start "$T/script.json" || finish
fake_config
CFG=$T/config.json
n=0
ask() { # NAME WANT-AUTH [dir]: asks from folder dir; checks the auth verdict.
	(cd "${3:-$T}" && cko-llm ask -c "$CFG" --transcript "$T/o/t$n.json" -o "$T/o/r$n.json" "$T/prompt.json") \
		>"$T/o/out$n" 2>"$T/o/err$n"
	expect_eq "$1" "$(req $n .auth)" "\"$2\""
	n=$((n + 1))
}
mkdir -p "$T/o" "$T/repo/.git" "$T/repo/sub/dir" "$T/outside/repo2/.git" "$T/outside/repo2/a"

# .env in a parent, found from a subfolder up to the folder holding .git.
unset CKO_DOTENV
printf '# settings\nOTHER=1\nexport OPENAI_API_KEY="%s"  \n' "$FAKE_KEY" >"$T/repo/.env"
ask llm-key-dotenv-parent ok "$T/repo/sub/dir"
# Not beyond it: a .env above the repository is not read.
printf 'OPENAI_API_KEY=%s\n' "$FAKE_KEY" >"$T/outside/.env"
ask llm-key-dotenv-stops-at-git none "$T/outside/repo2/a"
# $CKO_DOTENV names the file.
printf "OPENAI_API_KEY='%s' # comment\n" "$FAKE_KEY" >"$T/keyfile"
CKO_DOTENV=$T/keyfile ask llm-key-dotenv-env ok "$T/outside/repo2/a"
# The environment wins over .env.
printf 'OPENAI_API_KEY=sk-wrong-key-from-dotenv-000000\n' >"$T/repo/.env"
OPENAI_API_KEY=$FAKE_KEY ask llm-key-env-wins ok "$T/repo/sub/dir"
# CKO_DOTENV set but empty: no .env at all.
CKO_DOTENV= ask llm-key-dotenv-off none "$T/repo/sub/dir"
# Only the current folder and the root: not a folder in between.
rm "$T/repo/.env"
printf 'OPENAI_API_KEY=%s\n' "$FAKE_KEY" >"$T/repo/sub/.env"
ask llm-key-dotenv-not-between none "$T/repo/sub/dir"
ask llm-key-dotenv-cwd ok "$T/repo/sub"
# Outside any git work tree: the current folder's .env, never a parent's.
mkdir -p "$T/nogit/a/b"
printf 'OPENAI_API_KEY=%s\n' "$FAKE_KEY" >"$T/nogit/.env"
printf 'OPENAI_API_KEY=%s\n' "$FAKE_KEY" >"$T/nogit/a/.env"
ingit=0
d=$T
while [ "$d" != / ] && [ -n "$d" ]; do [ -e "$d/.git" ] && ingit=1; d=$(dirname "$d"); done
if [ $ingit = 0 ]; then
	ask llm-key-dotenv-no-git-parent none "$T/nogit/a/b"
	ask llm-key-dotenv-no-git-cwd ok "$T/nogit/a"
else
	skip llm-key-dotenv-no-git "the test folder $T is inside a git work tree"
fi
fake_stop

# A key that cannot go into a header is refused, without showing it.
OPENAI_API_KEY="$FAKE_KEY bad" expect_status llm-key-bad 2 cko-llm ask -c "$CFG" -o "$T/o/rb.json" "$T/prompt.json"
expect_grep llm-key-bad-message 'OPENAI_API_KEY holds a space' "$T/last.err"

CHECK=llm-key-nowhere no_key_in "$T/o" "$T/last.err" "$T/last.out" "$REQ" "$T/prompt.json"
finish
