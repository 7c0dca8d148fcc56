#include "sandbox/limits.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <mutex>
#include <cerrno>
#include <chrono>
#include <thread>

#include "base/fd.h"
#include "base/file.h"
#include "base/strings.h"

namespace sepp::sandbox {
namespace {

bool WriteText(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  UniqueFd f(fd);
  return write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

struct PidsParent {
  std::string dir;  // empty: none writable
  bool v1 = false;
};

// Mount points of the cgroup file systems, from mountinfo lines
// "id parent dev root MOUNTPOINT options ... - TYPE SOURCE SUPEROPTIONS".
void FindCgroupMounts(std::string* v1_pids, std::string* v2) {
  auto text = ReadFile("/proc/self/mountinfo");
  if (!text.ok()) return;
  for (const std::string& line : SplitLines(*text)) {
    size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::vector<std::string> head = Split(std::string_view(line).substr(0, dash), ' ');
    std::vector<std::string> tail = Split(std::string_view(line).substr(dash + 3), ' ');
    if (head.size() < 5 || tail.size() < 3) continue;
    std::string opts = "," + tail[2] + ",";
    if (tail[0] == "cgroup2" && v2->empty()) *v2 = head[4];
    if (tail[0] == "cgroup" && v1_pids->empty() && opts.find(",pids,") != std::string::npos)
      *v1_pids = head[4];
  }
}

bool IsFsType(const char* path, long magic) {
  struct statfs st {};
  return statfs(path, &st) == 0 && static_cast<long>(st.f_type) == magic;
}

PidsParent FindPidsCgroupParent() {
  // Our own cgroup paths: "N:controllers:/path" (v1) or "0::/path" (v2).
  auto own = ReadFile("/proc/self/cgroup");
  if (!own.ok()) return {};
  std::string v1_path, v2_path;
  bool have_v1 = false, have_v2 = false;
  for (const std::string& line : SplitLines(*own)) {
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string ctrls = "," + line.substr(a + 1, b - a - 1) + ",";
    std::string path = line.substr(b + 1);
    if (ctrls == ",,") {
      v2_path = path;
      have_v2 = true;
    } else if (ctrls.find(",pids,") != std::string::npos) {
      v1_path = path;
      have_v1 = true;
    }
  }
  // v1 first; the usual mount points before mountinfo (one statfs each).
  std::string v1_mount, v2_mount;
  if (have_v1) {
    if (IsFsType("/sys/fs/cgroup/pids", CGROUP_SUPER_MAGIC))
      v1_mount = "/sys/fs/cgroup/pids";
    else
      FindCgroupMounts(&v1_mount, &v2_mount);
    std::string dir = v1_mount.empty() ? "" : v1_mount + (v1_path == "/" ? "" : v1_path);
    if (!dir.empty() && access(dir.c_str(), W_OK) == 0) return {dir, true};
  }
  if (have_v2) {
    for (const char* m : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"})
      if (v2_mount.empty() && IsFsType(m, CGROUP2_SUPER_MAGIC)) v2_mount = m;
    if (v2_mount.empty()) FindCgroupMounts(&v1_mount, &v2_mount);
    if (v2_mount.empty()) return {};
    std::string dir = v2_mount + (v2_path == "/" ? "" : v2_path);
    auto ctl = ReadFile(dir + "/cgroup.subtree_control");
    if (ctl.ok() && (" " + *ctl).find(" pids") != std::string::npos &&
        access(dir.c_str(), W_OK) == 0)
      return {dir, false};
  }
  return {};
}

const PidsParent& CachedPidsParent() {
  static const PidsParent parent = FindPidsCgroupParent();
  return parent;
}

}  // namespace

std::vector<RlimitSetting> BuildRlimits(const Limits& limits) {
  std::vector<RlimitSetting> out;
  auto add = [&](int res, uint64_t v) { out.push_back({res, {v, v}}); };
  add(RLIMIT_CORE, 0);
  if (limits.max_memory_bytes) add(RLIMIT_AS, limits.max_memory_bytes);
  if (limits.max_file_bytes) add(RLIMIT_FSIZE, limits.max_file_bytes);
  if (limits.max_open_files) add(RLIMIT_NOFILE, limits.max_open_files);
  if (limits.max_processes) add(RLIMIT_NPROC, limits.max_processes);
  return out;
}

int ApplyRlimits(const std::vector<RlimitSetting>& settings, const char** step) {
  for (const auto& s : settings) {
    rlimit cur{};
    getrlimit(s.resource, &cur);
    rlimit v = s.value;
    // Never raise a hard limit sepp itself runs under.
    if (cur.rlim_max != RLIM_INFINITY && v.rlim_max > cur.rlim_max) v.rlim_max = cur.rlim_max;
    if (v.rlim_cur > v.rlim_max) v.rlim_cur = v.rlim_max;
    if (setrlimit(s.resource, &v) != 0) {
      *step = "setting a resource limit";
      return errno;
    }
  }
  return 0;
}

std::string PidsCgroupParent() { return CachedPidsParent().dir; }

bool ProcessLimitEnforceable() { return geteuid() != 0 || !PidsCgroupParent().empty(); }

void RemoveStalePidsCgroups() {
  const std::string& parent = CachedPidsParent().dir;
  if (parent.empty()) return;
  static std::once_flag once;
  std::call_once(once, [&] {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(parent, ec)) {
      std::string name = e.path().filename().string();
      if (name.rfind("sepp-", 0) != 0) continue;
      long pid = std::strtol(name.c_str() + 5, nullptr, 10);
      if (pid <= 0 || pid == getpid()) continue;
      if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      rmdir(e.path().c_str());
    }
  });
}

Result<std::unique_ptr<PidsCgroup>> PidsCgroup::Create(uint64_t max_pids) {
  const PidsParent& found = CachedPidsParent();
  const std::string& parent = found.dir;
  if (parent.empty())
    return Error::Make("no writable pids cgroup controller", "sandbox_unavailable");
  static std::atomic<unsigned> counter{0};
  std::string dir = parent + "/sepp-" + std::to_string(getpid()) + "-" +
                    std::to_string(counter.fetch_add(1));
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return Error::Make("cannot create the pids cgroup " + dir + ": " + ErrnoText(errno),
                       "sandbox_unavailable");
  // Writing a pid to cgroup.procs takes the kernel's global threadgroup
  // lock for writing, which waits for an RCU grace period (up to 11 ms
  // measured here); moving one thread through v1's `tasks` does not, and
  // the child is single-threaded when it joins.
  std::unique_ptr<PidsCgroup> cg(new PidsCgroup(dir, dir + (found.v1 ? "/tasks" : "/cgroup.procs")));
  if (!WriteText(dir + "/pids.max", std::to_string(max_pids)))
    return Error::Make("cannot set pids.max in " + dir + ": " + ErrnoText(errno),
                       "sandbox_unavailable");
  return cg;
}

int JoinCgroup(const char* join_file) {
  int fd = open(join_file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = write(fd, "0", 1) == 1 ? 0 : errno;
  close(fd);
  return err;
}

uint64_t PidsCgroup::RefusedForks() const {
  auto text = ReadFile(dir_ + "/pids.events");
  if (!text.ok()) return 0;
  size_t p = text->find("max ");
  return p == std::string::npos ? 0 : std::strtoull(text->c_str() + p + 4, nullptr, 10);
}

PidsCgroup::~PidsCgroup() {
  // The pid namespace is gone by now, but the kernel may take a moment to
  // release the last task from the cgroup.
  for (int i = 0; i < 200; ++i) {
    if (rmdir(dir_.c_str()) == 0 || errno == ENOENT) return;
    if (errno != EBUSY) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace sepp::sandbox
