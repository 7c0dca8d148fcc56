#!/bin/sh
# Sandbox start-up cost: `sepp sandbox -- CMD` against the plain command and
# against bubblewrap with a comparable set-up (new user/mount/pid/ipc/uts/net
# namespaces, read-only system, writable workspace, fresh /proc, minimal
# /dev, private /tmp), in one hyperfine run.
#
#   bench/sandbox/run.sh [path/to/sepp] [path/to/older/sepp]   (default: build/sepp)
# With a second binary, its rows come too (before/after in the same run).
# Target: at most 2 ms over plain, and under a third of bubblewrap's time.
# The `floor` rows are bench/sandbox/floor.c: nothing but the namespaces
# (user, mount, pid, ipc, uts, cgroup, network), no mounts, no Landlock, no
# seccomp: the least any launcher that creates them can take here.
# As root, sepp also makes a pids cgroup per run (RLIMIT_NPROC does not bind
# uid 0); run it as a normal user too (e.g. `su USER -c 'bench/sandbox/run.sh
# /path/to/sepp'`) for what most users see. JSON=FILE also writes hyperfine's
# JSON (means to the microsecond; bench/sandbox/summary.py prints them).
set -eu
SEPP=$(realpath "${1:-build/sepp}")
OLD=${2:+$(realpath "$2")}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bwrap (bubblewrap) is not installed" >&2; exit 1; }
WS=$(mktemp -d)
trap 'rm -rf "$WS"' EXIT
FLOOR=$WS/.floor
cc -O2 -static -o "$FLOOR" "$(dirname "$(realpath "$0")")/floor.c"
cd "$WS"
BWRAP="bwrap --unshare-all --die-with-parent --new-session --ro-bind /usr /usr \
  --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --symlink usr/sbin /sbin \
  --ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp --bind $WS $WS --chdir $WS --cap-drop ALL"
hyperfine -N --warmup 20 --runs ${RUNS:-300} --export-markdown "${OUT:-/dev/stdout}" \
  ${JSON:+--export-json "$JSON"} \
  -n 'plain true' 'true' \
  -n 'floor true' "$FLOOR true" \
  -n 'sepp sandbox true' "$SEPP sandbox -- true" \
  -n 'bwrap true' "$BWRAP true" \
  -n 'plain bash echo' "bash -c 'echo hi'" \
  -n 'floor bash echo' "$FLOOR bash -c 'echo hi'" \
  -n 'sepp sandbox bash echo' "$SEPP sandbox -- bash -c 'echo hi'" \
  -n 'bwrap bash echo' "$BWRAP bash -c 'echo hi'" \
  ${OLD:+-n 'older sepp sandbox true' "$OLD sandbox -- true"} \
  ${OLD:+-n 'older sepp sandbox bash echo' "$OLD sandbox -- bash -c 'echo hi'"}
