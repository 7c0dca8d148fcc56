#include "sandbox/child_env.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "base/fd.h"
#include "sandbox/proxy.h"

namespace sepp::sandbox {
namespace fs = std::filesystem;
namespace {

// The first bytes of a file ("" when unreadable).
std::string Head(const std::string& path, size_t n) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return {};
  std::string buf(n, '\0');
  ssize_t r = pread(fd.get(), buf.data(), n, 0);
  buf.resize(r > 0 ? static_cast<size_t>(r) : 0);
  return buf;
}

// PT_INTERP of a 64-bit ELF file (its dynamic loader), or "".
std::string ElfInterpreter(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return {};
  Elf64_Ehdr eh{};
  if (pread(fd.get(), &eh, sizeof eh, 0) != static_cast<ssize_t>(sizeof eh)) return {};
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return {};
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256) return {};
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    off_t at = static_cast<off_t>(eh.e_phoff + static_cast<uint64_t>(i) * sizeof ph);
    if (pread(fd.get(), &ph, sizeof ph, at) != static_cast<ssize_t>(sizeof ph)) return {};
    if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > 4096) continue;
    std::string interp(ph.p_filesz, '\0');
    if (pread(fd.get(), interp.data(), interp.size(), static_cast<off_t>(ph.p_offset)) !=
        static_cast<ssize_t>(interp.size()))
      return {};
    interp.resize(strnlen(interp.c_str(), interp.size()));
    return interp;
  }
  return {};
}

// The files execve() opens for execute when starting `path`: the file
// itself (canonical: Landlock checks the file, not the link), the
// interpreter of a "#!" script (one level; `#!/usr/bin/env X` names env,
// and X must be listed itself), and the ELF interpreter of each.
void ExecutedFiles(const std::string& path, std::vector<std::string>* out, int depth = 0) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec || depth > 2) return;
  out->push_back(real.string());
  std::string head = Head(real.string(), 256);
  if (head.rfind("#!", 0) == 0) {
    size_t end = head.find('\n');
    std::string line = head.substr(2, end == std::string::npos ? std::string::npos : end - 2);
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) return;
    size_t e = line.find_first_of(" \t", b);
    ExecutedFiles(line.substr(b, e == std::string::npos ? std::string::npos : e - b), out, depth + 1);
    return;
  }
  std::string interp = ElfInterpreter(real.string());
  if (!interp.empty()) ExecutedFiles(interp, out, depth + 1);
}

}  // namespace

std::string EnvValue(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& e : env)
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
      return e.substr(name.size() + 1);
  return {};
}

std::string ResolveCommand(const std::string& cmd, const std::vector<std::string>& env) {
  if (cmd.find('/') != std::string::npos) return cmd;
  std::string path = EnvValue(env, "PATH");
  if (path.empty()) path = "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string full = dir + "/" + cmd;
    if (access(full.c_str(), X_OK) == 0) return full;
    start = end + 1;
  }
  return cmd;
}

void PointTmpdirAtAWritableFolder(const Policy& policy, std::vector<std::string>* env) {
  if (policy.env_set.count("TMPDIR")) return;
  for (auto& e : *env) {
    if (e.rfind("TMPDIR=", 0) != 0) continue;
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(e.substr(7), ec);
    bool writable = false;
    for (const auto& root : policy.write_roots) {
      fs::path r = fs::weakly_canonical(root, ec);
      auto rel = dir.lexically_relative(r);
      if (!ec && !rel.empty() && *rel.begin() != "..") writable = true;
    }
    if (!writable) e = "TMPDIR=/tmp";
  }
}

void AddProxyEnv(const Policy& policy, std::vector<std::string>* env) {
  const std::string url = "http://127.0.0.1:" + std::to_string(kProxyPort);
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
                           "https_proxy", "all_proxy"})
    if (!policy.env_set.count(name)) env->push_back(std::string(name) + "=" + url);
  for (const char* name : {"NO_PROXY", "no_proxy"})
    if (!policy.env_set.count(name)) env->push_back(std::string(name) + "=");
}

Status RestrictExecute(const Policy& policy, const std::string& command,
                       const std::vector<std::string>& env, std::vector<LandlockRule>* rules) {
  if (!policy.exec_only) return Ok();
  if (LandlockAbi() == 0)
    return Error::Make("the policy limits which programs may run (exec), which needs Landlock, "
                       "and this kernel has none; enable Landlock (lsm=...,landlock) or drop "
                       "the exec limit", "sandbox_unavailable");
  for (auto& r : *rules) r.access &= ~landlock_access::kExecute;
  std::vector<std::string> files;
  ExecutedFiles(command, &files);  // a missing command fails at exec, as without the limit
  for (const auto& name : *policy.exec_only) {
    std::string resolved = ResolveCommand(name, env);
    size_t before = files.size();
    if (resolved.find('/') != std::string::npos) ExecutedFiles(resolved, &files);
    if (files.size() == before)
      return Error::Make("the program " + name + " allowed by exec is not found in the "
                         "server's PATH (" + EnvValue(env, "PATH") + "); give its full path",
                         "usage");
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  for (const auto& f : files)
    rules->push_back({f, landlock_access::kExecute | landlock_access::kReadFile, false});
  return Ok();
}

}  // namespace sepp::sandbox
