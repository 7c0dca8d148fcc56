#include "front/tui/git_branch.h"

#include <cctype>
#include <fstream>
#include <system_error>

namespace sepp::front::tui {
namespace {

// The first line of a small file ("" if it cannot be read).
std::string FirstLine(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  if (line.size() > 512) line.resize(512);  // HEAD is one short line
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

bool IsHex(const std::string& s) {
  if (s.size() < 7) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string GitBranch(const std::filesystem::path& start) {
  std::error_code ec;
  for (std::filesystem::path dir = start; !dir.empty(); dir = dir.parent_path()) {
    std::filesystem::path git = dir / ".git";
    std::filesystem::path git_dir;
    if (std::filesystem::is_directory(git, ec)) {
      git_dir = git;
    } else if (std::filesystem::is_regular_file(git, ec)) {
      std::string line = FirstLine(git);
      if (!line.starts_with("gitdir: ")) return "";
      git_dir = std::filesystem::path(line.substr(8));
      if (git_dir.is_relative()) git_dir = dir / git_dir;
    }
    if (!git_dir.empty()) {
      std::string head = FirstLine(git_dir / "HEAD");
      if (head.starts_with("ref: refs/heads/")) return head.substr(16);
      if (head.starts_with("ref: ")) return head.substr(5);
      return IsHex(head) ? head.substr(0, 7) : "";
    }
    if (dir == dir.root_path()) break;
  }
  return "";
}

}  // namespace sepp::front::tui
