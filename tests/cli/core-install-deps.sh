# tools/install-deps.sh: by default what a user needs to build and run cko;
# --tests adds what only the tests need (the Slurm daemons, clang, python3,
# python3-venv and cmake for make test-server);
# CI asks for both. --list prints the packages and installs nothing.
. "$(dirname "$0")/../lib.sh"
deps=$CKO_TOP/tools/install-deps.sh
expect_status install-deps/list 0 sh "$deps" --list
for p in build-essential libcjson-dev libcurl4-openssl-dev jq gnuplot-nox; do
	grep -qx "$p" "$T/last.out" && ok "install-deps/user-has-$p" || fail "install-deps/user-has-$p" "$(cat "$T/last.out")"
done
for p in slurm-wlm munge clang python3; do
	grep -qx "$p" "$T/last.out" && fail "install-deps/user-lacks-$p" "the default installs $p" || ok "install-deps/user-lacks-$p"
done
expect_status install-deps/tests-list 0 sh "$deps" --tests --list
for p in jq slurm-wlm munge clang python3 python3-venv cmake; do
	grep -qx "$p" "$T/last.out" && ok "install-deps/tests-has-$p" || fail "install-deps/tests-has-$p" "$(cat "$T/last.out")"
done
expect_status install-deps/bad-option 2 sh "$deps" --test
expect_grep install-deps/bad-option-says '--test: unknown option' "$T/last.err"
grep -q 'install-deps.sh --tests' "$CKO_TOP/.ci/run" && ok install-deps/ci-uses-tests || fail install-deps/ci-uses-tests "no --tests in .ci/run"
grep -qx 'make test-server' "$CKO_TOP/.ci/run" && ok install-deps/ci-runs-server-suite || fail install-deps/ci-runs-server-suite "no make test-server in .ci/run"
grep -q 'install-deps.sh --tests' "$CKO_TOP/README.md" && ok install-deps/readme-says || fail install-deps/readme-says "README does not mention --tests"
finish
