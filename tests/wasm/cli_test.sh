#!/usr/bin/env bash
# Drives `sepp wasm run/validate` (as wasm_cli_tool) on the checked-in
# regression modules and checks output and exit codes.
# Usage: cli_test.sh TOOL CORPUS_DIR
set -uo pipefail
tool=$1 dir=$2
fails=0 passes=0
check() {  # check NAME EXPECTED_RC EXPECTED_SUBSTRING -- CMD...
  local name=$1 want_rc=$2 want=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want_rc" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL $name: rc=$rc (want $want_rc), output: $out"
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
m=$dir/multivalue-trunc.wasm
check validate 0 "valid" -- "$tool" validate "$m"
check validate-garbage 1 "malformed" -- "$tool" validate "$0"
check run-multi 0 $'i32:1\ni32:2\ni32:3\ni32:4\ni32:5\ni32:6\ni32:7\ni32:-8' -- "$tool" run "$m" --invoke many 1 2 3 4 5 6 7 -8
check run-trap 1 "trap: integer overflow" -- "$tool" run "$m" --invoke trunc
check run-bad-arg 2 "not a valid i32" -- "$tool" run "$m" --invoke many 1 2 3 4 5 6 7 x
check run-arity 2 "takes 8 arguments" -- "$tool" run "$m" --invoke many 1
check run-missing 1 "no function named" -- "$tool" run "$m" --invoke nope
check run-fuel 1 "trap: fuel exhausted" -- "$tool" run "$dir/table-indirect-spin.wasm" --invoke spin --fuel 100000
check run-recursion 1 "trap: call stack exhausted" -- "$tool" run "$dir/infinite-recursion.wasm" --invoke f 0
check usage 2 "usage" -- "$tool"
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
