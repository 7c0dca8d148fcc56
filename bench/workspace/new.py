#!/usr/bin/env python3
"""`sepp new --no-attach` against a bare `git worktree add -b` on a generated
repository (default 100,000 files in 1,000 folders), interleaved, RUNS times
each (after one warm-up pair: the first checkout of a tree is the cold one),
in one run: wall and CPU (user + sys of the command and every process it
waited for, from wait4's rusage) medians side by side, and the difference.
Issue 15's target: sepp new <= git worktree add + 50 ms.

sepp's own part is measured apart too, on a one-file repository where the
checkout costs nothing: what `sepp new` spends beyond its `git worktree add`
(the git processes it starts to find the repository, the base and a free
branch; its record; the scratch folder). PROFILE=1 adds `strace -f -c` of
one `sepp new` there and the git commands it ran.

Usage: bench/workspace/new.py   (FILES=N RUNS=N BUILD=dir to change)
Not run by CI (making the repository takes a minute).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
SEPP = os.path.join(BUILD, "sepp")
FILES = int(os.environ.get("FILES", "100000"))
RUNS = int(os.environ.get("RUNS", "7"))


def timed(argv, cwd, env):
    """(wall ms, CPU ms) of argv and everything it waited for."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.read().decode()}")
    p.stderr.close()
    return wall, (ru.ru_utime + ru.ru_stime) * 1000


def run(argv, cwd, env):
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)


def make_repo(path, files, env):
    os.makedirs(path)
    run(["git", "init", "-q", "-b", "main", "."], path, env)
    run(["git", "config", "user.name", "bench"], path, env)
    run(["git", "config", "user.email", "bench@example.com"], path, env)
    for i in range(files):
        d = os.path.join(path, f"d{i % 1000:03d}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i}.txt"), "w") as f:
            f.write(f"file {i}\n")
    run(["git", "add", "-A"], path, env)
    run(["git", "commit", "-qm", "files"], path, env)


def compare(repo, work, env, runs, tag):
    """Interleaved pairs; returns {name: [(wall, cpu)]}."""
    out = {"git worktree add": [], "sepp new --no-attach": []}
    for i in range(runs + 1):  # pair 0 warms the cache
        plain = timed(["git", "worktree", "add", "-q", "-b", f"{tag}p{i}", os.path.join(work, f"{tag}p{i}"), "main"],
                      repo, env)
        ours = timed([SEPP, "new", "--no-attach", "--name", f"{tag}s{i}"], repo, env)
        run(["git", "worktree", "remove", "--force", os.path.join(work, f"{tag}p{i}")], repo, env)
        run([SEPP, "remove", "--force", f"{tag}s{i}"], repo, env)
        if i > 0:
            out["git worktree add"].append(plain)
            out["sepp new --no-attach"].append(ours)
    return out


def report(title, results):
    print(title)
    print(f"  {'':24} {'wall p50':>12} {'CPU p50':>12}")
    med = {}
    for name, rows in results.items():
        w = statistics.median(r[0] for r in rows)
        c = statistics.median(r[1] for r in rows)
        med[name] = (w, c)
        print(f"  {name:24} {w:9.1f} ms {c:9.1f} ms")
    (pw, pc), (ow, oc) = med["git worktree add"], med["sepp new --no-attach"]
    print(f"  {'difference':24} {ow - pw:+9.1f} ms {oc - pc:+9.1f} ms   (target: wall <= +50 ms)")


def profile(repo, env):
    if not shutil.which("strace"):
        print("PROFILE=1: strace is not installed")
        return
    trace = os.path.join(os.path.dirname(repo), "strace.txt")
    subprocess.run(["strace", "-f", "-qq", "-c", "-o", trace, SEPP, "new", "--no-attach", "--name", "prof"],
                   cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)
    print(open(trace).read())
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve", "-e", "signal=none", "-o", trace, SEPP, "new",
                    "--no-attach", "--name", "prof2"], cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)
    print("the programs it ran (execve that succeeded or was still running when traced):")
    for line in open(trace):
        if "execve(" in line and "= -1" not in line and "resumed" not in line:
            print("  " + line.split("execve(", 1)[1].split("], ")[0][:160])


def main():
    if not os.access(SEPP, os.X_OK):
        sys.exit(f"build first: {SEPP} is missing (scripts/setup)")
    work = tempfile.mkdtemp(prefix="sepp-new-bench-")
    try:
        home = os.path.join(work, "home")
        os.makedirs(home)
        env = dict(os.environ, HOME=home, SEPP_HOME=os.path.join(home, ".sepp"), GIT_CONFIG_NOSYSTEM="1",
                   GIT_CEILING_DIRECTORIES=work)
        small = os.path.join(work, "small")
        make_repo(small, 1, env)
        big = os.path.join(work, "repo")
        make_repo(big, FILES, env)
        git_dir = subprocess.run(["du", "-sh", os.path.join(big, ".git")], capture_output=True, text=True)
        print(f"repository: {FILES} files, {git_dir.stdout.split()[0]} .git; {RUNS} interleaved pairs each, "
              "after one warm-up pair")
        report(f"{FILES}-file repository:", compare(big, work, env, RUNS, "b"))
        report("1-file repository (sepp's own part: the difference):", compare(small, work, env, max(RUNS, 15), "s"))
        if os.environ.get("PROFILE"):
            profile(small, env)
        print("load average: " + open("/proc/loadavg").read().strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
