#include "agent/system_prompt.h"

#include "base/file.h"
#include "base/paths.h"
#include "base/strings.h"
#include "base/worktree_layout.h"

namespace sepp::agent {
namespace {

constexpr size_t kMaxContextFileBytes = 64 * 1024;
// All of them together: a deep tree of folders each with an AGENTS.md must
// not fill the context window before the first prompt.
constexpr size_t kMaxContextTotalBytes = 128 * 1024;

void AddIfPresent(const std::filesystem::path& dir, std::vector<ContextFile>& out) {
  for (const char* name : {"AGENTS.md", "CLAUDE.md"}) {
    std::error_code ec;
    auto p = dir / name;
    if (!std::filesystem::is_regular_file(p, ec)) continue;
    auto text = ReadFile(p);
    if (!text.ok()) continue;
    std::string content = SanitizeUtf8(*text);
    if (content.size() > kMaxContextFileBytes)
      content = content.substr(0, Utf8SafePrefix(content, kMaxContextFileBytes)) +
                "\n[... cut: the file is larger than 64 KB]";
    out.push_back({p, std::move(content)});
  }
}

}  // namespace

std::vector<ContextFile> FindContextFiles(const std::filesystem::path& cwd) {
  std::vector<ContextFile> out;
  AddIfPresent(SeppHome(), out);
  std::vector<std::filesystem::path> chain;
  for (auto p = cwd.lexically_normal(); ; p = p.parent_path()) {
    chain.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) AddIfPresent(*it, out);
  // Over the total, the nearest files are kept (they refine the farther
  // ones); each one left out says so where it would have been.
  size_t total = 0;
  for (auto it = out.rbegin(); it != out.rend(); ++it) {
    if (total + it->content.size() <= kMaxContextTotalBytes) {
      total += it->content.size();
      continue;
    }
    it->content = "[... left out: the context files together are larger than 128 KB; the "
                  "nearer ones were kept. Read this file with the read tool if you need it.]";
  }
  return out;
}

std::string BuildSystemPrompt(const std::filesystem::path& cwd, const std::string& date,
                              const std::vector<ToolLine>& tools,
                              const std::vector<ContextFile>& context) {
  std::string s =
      "You are sepp, a coding agent working in the user's project. You help by reading "
      "code, running commands and editing files with the tools below. Work step by step: "
      "look before you change, make the smallest change that does the job, and check it "
      "(build, run the tests) when you can. Commands run in a sandbox: if one is denied, "
      "the result says why; do not try to get around it. Be concise in your answers.\n\n";
  s += "Tools:\n";
  for (const auto& t : tools) {
    std::string first_line = t.description.substr(0, t.description.find('\n'));
    s += "- " + t.name + ": " + first_line + "\n";
  }
  s += "\nWorking directory: " + cwd.string() + "\n";
  if (auto slot = SlotOf(cwd))
    s += "This is sepp session " + slot->name + ", in its own git worktree on branch sepp/" +
         slot->name + ". Scratch folder (writable, not part of the repository; for bulky "
         "intermediates): " + slot->scratch.string() + "\n";
  s += "Today's date: " + date + "\n";
  for (const auto& f : context) {
    s += "\n<context file=\"" + f.path.string() + "\">\n" + f.content;
    if (!EndsWith(f.content, "\n")) s += "\n";
    s += "</context>\n";
  }
  return s;
}

}  // namespace sepp::agent
