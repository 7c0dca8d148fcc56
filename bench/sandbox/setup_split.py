#!/usr/bin/env python3
"""Where the CPU of one confined launch and of one session sandbox set-up
goes, side by side: perf record (cpu-clock, kernel and user stacks) over
SEPP_BENCH_ITERATIONS runs of each set-up case of bench_session_sandbox,
every sample put into one part by its process and the kernel function on its
stack, in microseconds of CPU per iteration.

  bench/sandbox/setup_split.py [BUILD_DIR=build]   (ITERATIONS=300, FREQ=20000)

"launcher" is sepp's process and the child between clone and exec (both
carry the bench's name); "command" is what the child execs: /bin/true for
the launch, the tool worker (sepp) for the set-up. Needs perf and root (or
perf_event_paranoid <= 1); sampling adds its own cost, so compare the parts
with each other, not with the bench's own CPU times. Load-dependent like any
CPU profile (the dentry cache's size moves the path lookups); state the load.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

CASES = ("BM_SetUpOneOffLaunch", "BM_SetUpSessionSandbox")
LAUNCHER_COMM = "bench_session_s"

# (part, test on the stack's kernel function names, leaf first); first match wins.
LAUNCHER_PARTS = [
    ("network namespace (clone)", lambda f: "copy_net_ns" in f),
    ("other namespaces (clone)", lambda f: "copy_namespaces" in f),
    ("clone (the process or thread itself)", lambda f: any(x in f for x in ("sys:clone", "sys:clone3"))),
    ("seccomp install", lambda f: "do_seccomp" in f),
    ("Landlock", lambda f: any(x.startswith("sys:landlock") for x in f)),
    ("capabilities, no_new_privs, pdeathsig (prctl, capset)", lambda f: any(x in f for x in ("sys:prctl", "sys:capset"))),
    ("pids cgroup (mkdir, rmdir, join)", lambda f: any(x in f for x in ("kernfs_iop_mkdir", "sys:rmdir", "cgroup_procs_write", "cgroup_tasks_write", "__cgroup1_procs_write"))),
    ("mounts (mount, mount_setattr, chroot, pivot_root)", lambda f: any(x in f for x in ("sys:mount", "sys:mount_setattr", "sys:chroot", "sys:pivot_root", "sys:umount"))),
    ("mount points (mkdir, mknod, symlink)", lambda f: any(x in f for x in ("sys:mkdir", "sys:mkdirat", "sys:mknodat", "sys:symlink", "sys:symlinkat"))),
    ("path lookups (open, openat2, readlink, stat, access, getdents)", lambda f: any(x in f for x in ("sys:openat", "sys:openat2", "sys:readlink", "sys:newfstatat", "sys:access", "sys:faccessat2", "sys:getdents64", "sys:statx"))),
    ("loopback up (ioctl)", lambda f: "sys:ioctl" in f),
    ("exec (until the command's own code)", lambda f: "sys:execve" in f),
    ("wait, futex, poll, pipes, sockets, close", lambda f: any(x in f for x in ("sys:wait4", "sys:futex", "sys:poll", "sys:pipe2", "sys:socketpair", "sys:socket", "sys:close", "sys:sendmsg", "sys:read", "sys:write", "sys:eventfd2", "sys:shutdown", "sys:kill", "sys:pidfd_open", "sys:pidfd_send_signal", "sys:waitid"))),
    ("page faults", lambda f: "exc_page_fault" in f),
]
COMMAND_PARTS = [
    ("page faults", lambda f: "exc_page_fault" in f),
    ("exec", lambda f: "sys:execve" in f),
    ("path lookups (stat, readlink, open, getdents)", lambda f: any(x in f for x in ("sys:newfstatat", "sys:readlink", "sys:openat", "sys:getdents64", "sys:faccessat2", "sys:access"))),
    ("clone, mmap, mprotect, munmap (threads, the loader, malloc)", lambda f: any(x in f for x in ("sys:clone", "sys:clone3", "sys:mmap", "sys:mprotect", "sys:munmap"))),
    ("exit", lambda f: any(x in f for x in ("do_exit", "do_group_exit"))),
]


def samples(path):
    """(comm, [frame symbol, leaf first], leaf_is_kernel) per sample."""
    comm, frames = None, []
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip():
                if comm is not None:
                    yield comm, frames
                comm, frames = None, []
            elif not line[0].isspace():
                comm, frames = line.split()[0], []
            else:
                parts = line.strip().split(None, 1)
                sym = parts[1] if len(parts) > 1 else "?"
                frames.append(re.sub(r"\+0x[0-9a-f]+", "", sym))
    if comm is not None:
        yield comm, frames


def part_of(comm, frames):
    side = "launcher" if comm == LAUNCHER_COMM else "command"
    if not frames or "[kernel.kallsyms]" not in frames[0]:
        return side, "user space"
    names = {re.sub(r"\s*\(.*\)$", "", f) for f in frames if "[kernel.kallsyms]" in f}
    # __x64_sys_openat, __do_sys_clone, __se_sys_prctl: "sys:openat", ...
    names |= {"sys:" + m.group(1) for n in names if (m := re.match(r"__(?:x64|do|se)_sys_(\w+)$", n))}
    for part, test in LAUNCHER_PARTS if side == "launcher" else COMMAND_PARTS:
        if test(names):
            return side, part
    return side, "other kernel" if side == "launcher" else "other syscalls and kernel"


def profile(build, case, iterations, freq, tmp):
    exe = os.path.join(build, "bench/sandbox/bench_session_sandbox")
    data = os.path.join(tmp, case + ".data")
    env = dict(os.environ, SEPP_BENCH_ITERATIONS=str(iterations))
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq), "-g", "-o", data,
                    exe, "--benchmark_filter=" + case], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    script = os.path.join(tmp, case + ".txt")
    with open(script, "w") as out:
        subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym,dso"], stdout=out,
                       stderr=subprocess.DEVNULL, check=True)
    us = collections.Counter()
    per_sample = 1e6 / freq / iterations
    for comm, frames in samples(script):
        us[part_of(comm, frames)] += per_sample
    return us


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    iterations = int(os.environ.get("ITERATIONS", "300"))
    freq = int(os.environ.get("FREQ", "20000"))
    with tempfile.TemporaryDirectory() as tmp:
        got = {c: profile(build, c, iterations, freq, tmp) for c in CASES}
    keys = sorted(set(got[CASES[0]]) | set(got[CASES[1]]),
                  key=lambda k: (k[0] != "launcher", -(got[CASES[1]][k] + got[CASES[0]][k])))
    print(f"load average {os.getloadavg()[0]:.1f}; {iterations} iterations, perf at {freq} Hz; "
          "us of CPU per iteration")
    print(f"{'side':9} {'part':62} {'launch':>8} {'set-up':>8} {'diff':>8}")
    for k in keys:
        a, b = got[CASES[0]][k], got[CASES[1]][k]
        print(f"{k[0]:9} {k[1]:62} {a:8.0f} {b:8.0f} {b - a:+8.0f}")
    ta, tb = sum(got[CASES[0]].values()), sum(got[CASES[1]].values())
    print(f"{'total':72} {ta:8.0f} {tb:8.0f} {tb - ta:+8.0f}   set-up / launch {tb / ta:.2f}x")


if __name__ == "__main__":
    main()
