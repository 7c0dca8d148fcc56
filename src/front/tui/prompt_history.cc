#include "front/tui/prompt_history.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/json.h"
#include "base/paths.h"
#include "base/secrets.h"

namespace sepp::front::tui {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::filesystem::path PromptHistory::FileFor(const std::filesystem::path& cwd) {
  // The same spelling as the project grants: the path with '/' as '-'.
  std::string key;
  for (char c : cwd.lexically_normal().string()) key += (c == '/' ? '-' : c);
  return SeppHome() / "history" / ((key.empty() ? "-" : key) + ".jsonl");
}

PromptHistory::PromptHistory(std::filesystem::path file) : file_(std::move(file)) {
  std::ifstream in(file_);
  std::string line;
  while (std::getline(in, line)) {
    auto j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("text") || !j["text"].is_string()) continue;
    entries_.push_back(j["text"].get<std::string>());
  }
  if (entries_.size() > kMaxEntries) entries_.erase(entries_.begin(), entries_.end() - kMaxEntries);
  for (const auto& e : entries_) lower_.push_back(Lower(e));
}

std::string PromptHistory::Add(const std::string& text_in) {
  browse_ = -1;
  // A provider key pasted into a prompt never reaches the file.
  std::string text = Redact(text_in);
  if (text.empty() || (!entries_.empty() && entries_.back() == text)) return "";
  entries_.push_back(text);
  lower_.push_back(Lower(text));
  if (entries_.size() > kMaxEntries) {
    entries_.erase(entries_.begin());
    lower_.erase(lower_.begin());
  }
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  // One write() of one line with O_APPEND: two sepp processes in the same
  // project interleave whole lines, never halves.
  std::string line = DumpJson(Json{{"text", text}}) + "\n";
  int fd = open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot save the prompt history to " + file_.string() + ": " + std::strerror(errno);
  ssize_t n = write(fd, line.data(), line.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(line.size()))
    return "cannot save the prompt history to " + file_.string() + ": " + std::strerror(err);
  return "";
}

std::optional<std::string> PromptHistory::Older(const std::string& draft) {
  if (entries_.empty()) return std::nullopt;
  if (browse_ < 0) {
    draft_ = draft;
    browse_ = static_cast<int>(entries_.size());
  }
  if (browse_ == 0) return std::nullopt;
  --browse_;
  return entries_[browse_];
}

std::optional<std::string> PromptHistory::Newer() {
  if (browse_ < 0) return std::nullopt;
  ++browse_;
  if (browse_ >= static_cast<int>(entries_.size())) {
    browse_ = -1;
    return draft_;
  }
  return entries_[browse_];
}

int PromptHistory::Search(const std::string& query, int before) const {
  std::string q = Lower(query);
  for (int i = std::min(before, static_cast<int>(entries_.size())) - 1; i >= 0; --i) {
    if (lower_[i].find(q) != std::string::npos) return i;
  }
  return -1;
}

}  // namespace sepp::front::tui
