#include "sandbox/denials.h"

#include <csignal>
#include <cstdio>

namespace sepp::sandbox {
namespace {

bool Has(std::string_view text, std::string_view needle) {
  return text.find(needle) != std::string_view::npos;
}

void Add(std::vector<Denial>* out, DenialKind kind, std::string target, std::string text) {
  for (const auto& e : *out)
    if (e.text == text) return;
  out->push_back({kind, std::move(target), std::move(text)});
}

bool IsQuote(char c) { return c == '\'' || c == '"' || c == '`'; }

// Typographic quotes (GNU tools in UTF-8 locales): ‘ ’ “ ”, three bytes each.
bool EndsWithTypographicQuote(std::string_view s) {
  if (s.size() < 3 || static_cast<unsigned char>(s[s.size() - 3]) != 0xE2 ||
      static_cast<unsigned char>(s[s.size() - 2]) != 0x80)
    return false;
  unsigned char c = static_cast<unsigned char>(s.back());
  return c == 0x98 || c == 0x99 || c == 0x9C || c == 0x9D;
}

bool LooksLikePath(std::string_view w) {
  return !w.empty() && (w.find('/') != std::string_view::npos || w[0] == '.' || w[0] == '~');
}

// The path an error line names next to `marker`, as the command wrote it
// (absolute or relative):
//   cat: /etc/shadow: Permission denied         sh: 1: cannot create a/b: Read-only ...
//   touch: cannot touch 'a b/c': Permission denied
//   mkdir: cannot create directory ‘/x’: Permission denied
//   PermissionError: [Errno 13] Permission denied: '/x/y'   (after the marker)
// Empty when the words there are not a path ("ping: socket: Permission denied").
std::string PathNear(std::string_view line, std::string_view marker) {
  size_t at = line.find(marker);
  if (at == std::string_view::npos) return {};
  std::string_view before = line.substr(0, at);
  while (!before.empty() && (before.back() == ' ' || before.back() == ':')) before.remove_suffix(1);
  std::string_view word;
  if (!before.empty() && IsQuote(before.back())) {
    char q = before.back();
    before.remove_suffix(1);
    size_t open = before.rfind(q);
    word = before.substr(open == std::string_view::npos ? 0 : open + 1);
  } else if (EndsWithTypographicQuote(before)) {
    before.remove_suffix(3);
    size_t open = before.rfind("\xE2\x80");
    word = open == std::string_view::npos || open + 3 > before.size() ? before
                                                                       : before.substr(open + 3);
  } else {
    size_t sp = before.find_last_of(" \t");
    word = before.substr(sp == std::string_view::npos ? 0 : sp + 1);
  }
  if (LooksLikePath(word)) return std::string(word);
  std::string_view after = line.substr(at + marker.size());
  size_t q = after.find_first_of("'\"");
  if (q != std::string_view::npos) {
    size_t close = after.find(after[q], q + 1);
    if (close != std::string_view::npos) {
      std::string_view quoted = after.substr(q + 1, close - q - 1);
      if (LooksLikePath(quoted)) return std::string(quoted);
    }
  }
  return {};
}

}  // namespace

std::vector<Denial> ExplainDenials(const Policy& policy, const RunFacts& f,
                                   std::string_view out) {
  std::vector<Denial> d;
  if (f.timed_out) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "the command was stopped after %g s: the sandbox's time limit "
                  "(limits.timeout) ran out, and every process it started was killed",
                  f.timeout_s);
    Add(&d, DenialKind::kTimeLimit, "", buf);
  }
  if (f.refused_forks > 0 || Has(out, "fork: retry") || Has(out, "Resource temporarily unavailable") ||
      Has(out, "fork: Cannot allocate"))
    if (policy.limits.max_processes > 0)
      Add(&d, DenialKind::kProcessLimit, "",
          "the sandbox refused to start more processes: the policy allows at most " +
                  std::to_string(policy.limits.max_processes) + " (limits.processes)");
  if ((Has(out, "Cannot allocate memory") || Has(out, "MemoryError") || Has(out, "bad_alloc") ||
       Has(out, "out of memory")) &&
      policy.limits.max_memory_bytes > 0)
    Add(&d, DenialKind::kOther, "",
        "the command ran out of memory: the policy caps its address space at " +
                std::to_string(policy.limits.max_memory_bytes >> 20) + " MiB (limits.memory)");
  if ((f.term_signal == SIGXFSZ || Has(out, "File size limit exceeded")) &&
      policy.limits.max_file_bytes > 0)
    Add(&d, DenialKind::kOther, "",
        "the command tried to write a file larger than the policy allows (limits.file_size)");

  // Line by line: a refusal on a network operation reads like one on a file
  // ("Permission denied" is what Landlock answers to connect()).
  bool net_error = false, op_error = false;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string_view::npos) end = out.size();
    std::string_view line = out.substr(start, end - start);
    start = end + 1;
    bool netty = Has(line, "connect") || Has(line, "/dev/tcp") || Has(line, "/dev/udp") ||
                 Has(line, "socket") || Has(line, "bind") || Has(line, "resolve") ||
                 Has(line, "http") || Has(line, "Network is unreachable") ||
                 Has(line, "name resolution") || Has(line, "Name or service not known") ||
                 Has(line, "getaddrinfo") || Has(line, "No address associated");
    bool refused = Has(line, "Permission denied") || Has(line, "Operation not permitted") ||
                   Has(line, "Network is unreachable") || Has(line, "Could not resolve") ||
                   Has(line, "name resolution") || Has(line, "Name or service not known") ||
                   Has(line, "No address associated") || Has(line, "Connection refused");
    if (netty && refused) {
      net_error = true;
      continue;
    }
    if (Has(line, "Read-only file system")) {
      std::string p = PathNear(line, "Read-only file system");
      Add(&d, DenialKind::kWrite, p,
          "writing " + (p.empty() ? std::string("there") : p) +
                  " is not allowed: the sandbox only lets the command write its workspace and "
                  "/tmp, and keeps protected paths (git's configuration and hooks, .sepp) read-only");
    } else if (Has(line, "Permission denied")) {
      std::string p = PathNear(line, "Permission denied");
      bool denied = false;
      for (const auto& dp : policy.deny_paths)
        if (!p.empty() && p.rfind(dp, 0) == 0) denied = true;
      if (denied)
        Add(&d, DenialKind::kSecret, p,
            "reading " + p + " is not allowed: the sandbox policy denies it (deny paths "
                                 "hold secrets such as keys and credentials)");
      else
        Add(&d, DenialKind::kRead, p,
            "access to " + (p.empty() ? std::string("a path") : p) +
                    " was refused: it is outside what the sandbox policy lets this command "
                    "read or write");
    } else if (Has(line, "Operation not permitted")) {
      op_error = true;
    }
  }
  if (net_error && policy.net == NetMode::kOff)
    Add(&d, DenialKind::kNetwork, "",
        "network access is off for this command: the net capability was not granted");
  if (net_error && policy.net == NetMode::kProxy)
    Add(&d, DenialKind::kNetwork, "",
        "direct network access is blocked: this command may only reach the allowed "
            "domains through the sandbox's HTTP(S) proxy (HTTPS_PROXY is set)");
  if (Has(out, "403 Forbidden") && Has(out, "sepp") && policy.net == NetMode::kProxy)
    Add(&d, DenialKind::kNetwork, "",
        "the sandbox's proxy refused a host that is not on the policy's domain allowlist "
            "(network.allow_domains)");
  if (op_error)
    Add(&d, DenialKind::kOther, "",
        "the kernel refused an operation the sandbox forbids (for example debugging other "
            "processes, mounting, kernel keyrings, or raw and netlink sockets)");
  if (f.term_signal == SIGSYS)
    Add(&d, DenialKind::kOther, "",
        "the command made a system call from a foreign architecture, which the sandbox "
            "forbids");
  return d;
}

}  // namespace sepp::sandbox
