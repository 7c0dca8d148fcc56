#!/usr/bin/env bash
# Converts the non-SIMD spec scripts with wast2json and runs them.
# Usage: run_spec.sh TOOL TESTSUITE_DIR OUT_DIR EXPECTED_FAILURES
set -euo pipefail
tool=$1 suite=$2 out=$3 expected=$4
if ! command -v wast2json >/dev/null; then
  echo "wast2json not found: install Debian's wabt package" >&2
  exit 1
fi
if [ ! -d "$suite" ]; then
  echo "testsuite not found at $suite" >&2
  exit 1
fi
mkdir -p "$out"
jsons=()
for wast in "$suite"/*.wast; do
  name=$(basename "$wast" .wast)
  case "$name" in simd_*) continue ;; esac
  json="$out/$name.json"
  if [ ! -f "$json" ] || [ "$wast" -nt "$json" ]; then
    (cd "$out" && wast2json "$wast" -o "$name.json")
  fi
  jsons+=("$json")
done
exec "$tool" --expected-failures "$expected" "${jsons[@]}"
