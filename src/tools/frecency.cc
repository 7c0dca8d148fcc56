#include "tools/frecency.h"

#include <cmath>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace sepp::tools {
namespace {

using Clock = std::chrono::system_clock;

struct Use {
  Clock::time_point at;
  FileUse kind;
};

struct History {
  std::mutex mu;
  std::unordered_map<std::string, std::deque<Use>> uses;
};

History& TheHistory() {
  static History* h = new History;  // never destroyed: tool threads may outlive statics
  return *h;
}

constexpr size_t kPerFile = 16;
constexpr size_t kFiles = 20'000;

// FFF's AI-mode steps: 16/8/4/2/1 points within 30 s / 5 min / 15 min / 1 h
// / 4 h, then a 3-day half-life, nothing after 7 days.
double Points(Clock::duration age) {
  using namespace std::chrono;
  if (age < seconds(30)) return 16;
  if (age < minutes(5)) return 8;
  if (age < minutes(15)) return 4;
  if (age < hours(1)) return 2;
  if (age < hours(4)) return 1;
  double days = duration<double>(age).count() / 86400.0;
  if (days > 7) return 0;
  return std::exp2(-days / 3.0);
}

}  // namespace

void RecordFileUse(const std::string& path, FileUse use) {
  History& h = TheHistory();
  std::lock_guard<std::mutex> lock(h.mu);
  if (h.uses.size() >= kFiles && !h.uses.count(path)) h.uses.clear();  // a bounded forget-all
  auto& q = h.uses[path];
  q.push_back({Clock::now(), use});
  if (q.size() > kPerFile) q.pop_front();
}

double FrecencyScore(const std::string& path, Clock::time_point now) {
  History& h = TheHistory();
  std::lock_guard<std::mutex> lock(h.mu);
  auto it = h.uses.find(path);
  if (it == h.uses.end()) return 0;
  double total = 0;
  for (const Use& u : it->second) total += Points(now - u.at) * (u.kind == FileUse::kChange ? 4 : 1);
  return total;
}

std::vector<std::pair<std::string, double>> FrecencySnapshot(Clock::time_point now) {
  History& h = TheHistory();
  std::lock_guard<std::mutex> lock(h.mu);
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [path, uses] : h.uses) {
    double total = 0;
    for (const Use& u : uses) total += Points(now - u.at) * (u.kind == FileUse::kChange ? 4 : 1);
    if (total > 0) out.emplace_back(path, total);
  }
  return out;
}

void ClearFileUses() {
  History& h = TheHistory();
  std::lock_guard<std::mutex> lock(h.mu);
  h.uses.clear();
}

}  // namespace sepp::tools
