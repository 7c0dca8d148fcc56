#!/usr/bin/env bash
# `sepp new --no-attach` against a bare `git worktree add` on a generated
# repository (default 100,000 files in 1,000 folders), interleaved, RUNS
# times each; prints the medians and the difference. Issue 15's target:
# sepp new ≤ worktree add + 50 ms. Not run by CI (it takes a minute to make
# the repository).
# Usage: bench/workspace/new.sh   (FILES=N RUNS=N BUILD=dir to change)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
files=${FILES:-100000}
runs=${RUNS:-7}
sepp=$build/sepp
[ -x "$sepp" ] || { echo "build first: scripts/setup" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home SEPP_HOME=$work/home/.sepp GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
repo=$work/repo
mkdir -p "$repo"
cd "$repo"
git init -q -b main .
git config user.name bench && git config user.email bench@example.com
python3 - "$files" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = f"d{i % 1000:03d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i}.txt", "w") as f:
        f.write(f"file {i}\n")
PY
git add -A >/dev/null && git commit -qm files
echo "repository: $files files, $(du -sh .git | cut -f1) .git"

us() { echo "${EPOCHREALTIME/./}"; }  # microseconds, no process started
plain=() ours=()
for i in $(seq "$runs"); do
  t0=$(us); git worktree add -q -b "plain$i" "$work/plain$i" main; t1=$(us)
  plain+=($(( (t1 - t0) )))
  t0=$(us); "$sepp" new --no-attach --name "s$i" >/dev/null; t1=$(us)
  ours+=($(( (t1 - t0) )))
  git worktree remove --force "$work/plain$i"
  "$sepp" remove --force "s$i" >/dev/null
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
p=$(median "${plain[@]}") o=$(median "${ours[@]}")
echo "git worktree add:       $((p / 1000)) ms (median of $runs)"
echo "sepp new --no-attach:   $((o / 1000)) ms (median of $runs)"
echo "difference:             $(((o - p) / 1000)) ms (target <= 50 ms)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
