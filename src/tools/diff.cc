// Myers' greedy algorithm finds a shortest edit script between the line
// sequences; the trace of V arrays (one per edit distance d) is walked back
// from the end to recover the script. The common prefix and suffix are
// stripped first, so a small edit in a big file costs almost nothing. When the
// distance would exceed kMaxD the middle is treated as replaced wholesale
// (the trace keeps d's diagonals -d..d for every d: about D² ints).
#include "tools/diff.h"

#include <algorithm>
#include <vector>

namespace sepp::tools {
namespace {

constexpr long kMaxD = 1000;

enum class Op { kEqual, kDelete, kInsert };

struct Step {
  Op op;
  size_t a;  // index into old lines (Equal, Delete)
  size_t b;  // index into new lines (Equal, Insert)
};

// Lines with their '\n' (the last one may lack it), so that a change of the
// final newline is a change of that line.
std::vector<std::string_view> SplitKeepingNewlines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// The edit script between a[a0, a1) and b[b0, b1), appended to out.
void Myers(const std::vector<std::string_view>& a, size_t a0, size_t a1,
           const std::vector<std::string_view>& b, size_t b0, size_t b1, std::vector<Step>& out) {
  long n = static_cast<long>(a1 - a0), m = static_cast<long>(b1 - b0);
  long max = std::min(n + m, kMaxD);
  long offset = max + 1;
  std::vector<long> v(static_cast<size_t>(2 * max + 3), 0);
  std::vector<std::vector<int>> trace;  // trace[d][k + d] = V[k] after step d
  long found_d = -1;
  for (long d = 0; d <= max && found_d < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset]))
        x = v[k + 1 + offset];
      else
        x = v[k - 1 + offset] + 1;
      long y = x - k;
      while (x < n && y < m && a[a0 + x] == b[b0 + y]) ++x, ++y;
      v[k + offset] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
    trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
  }
  if (found_d < 0) {  // too different: replace the whole middle
    for (size_t i = a0; i < a1; ++i) out.push_back({Op::kDelete, i, b0});
    for (size_t j = b0; j < b1; ++j) out.push_back({Op::kInsert, a1, j});
    return;
  }
  std::vector<Step> rev;
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const std::vector<int>& pv = trace[static_cast<size_t>(d - 1)];
    auto at = [&](long k) { return static_cast<long>(pv[static_cast<size_t>(k + d - 1)]); };
    long k = x - y;
    long prev_k = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    long prev_x = at(prev_k);
    long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      --x, --y;
      rev.push_back({Op::kEqual, a0 + x, b0 + y});
    }
    if (x == prev_x)
      rev.push_back({Op::kInsert, a0 + x, b0 + prev_y});
    else
      rev.push_back({Op::kDelete, a0 + prev_x, b0 + y});
    x = prev_x, y = prev_y;
  }
  while (x > 0 && y > 0) {
    --x, --y;
    rev.push_back({Op::kEqual, a0 + x, b0 + y});
  }
  out.insert(out.end(), rev.rbegin(), rev.rend());
}

std::string Range(size_t start, size_t count) {
  // start is 1-based; an empty range names the line before it.
  if (count == 1) return std::to_string(start);
  return std::to_string(count == 0 ? start - 1 : start) + "," + std::to_string(count);
}

void AppendLine(std::string& out, char mark, std::string_view line) {
  out += mark;
  out.append(line);
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string UnifiedDiff(std::string_view old_text, std::string_view new_text,
                        std::string_view old_name, std::string_view new_name, int context,
                        DiffStats* stats) {
  if (stats) *stats = {};
  if (old_text == new_text) return "";
  auto a = SplitKeepingNewlines(old_text);
  auto b = SplitKeepingNewlines(new_text);
  size_t ctx = static_cast<size_t>(std::max(context, 0));

  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;

  std::vector<Step> steps;
  for (size_t i = 0; i < pre; ++i) steps.push_back({Op::kEqual, i, i});
  Myers(a, pre, a.size() - suf, b, pre, b.size() - suf, steps);
  for (size_t i = suf; i > 0; --i)
    steps.push_back({Op::kEqual, a.size() - i, b.size() - i});

  std::string out = "--- a/" + std::string(old_name) + "\n+++ b/" + std::string(new_name) + "\n";
  size_t i = 0;
  while (i < steps.size()) {
    // Next change.
    while (i < steps.size() && steps[i].op == Op::kEqual) ++i;
    if (i == steps.size()) break;
    size_t start = i >= ctx ? i - ctx : 0;
    // Extend over changes whose gaps are at most 2*ctx equal lines.
    size_t end = i;
    for (;;) {
      while (end < steps.size() && steps[end].op != Op::kEqual) ++end;
      size_t eq = end;
      while (eq < steps.size() && steps[eq].op == Op::kEqual) ++eq;
      if (eq < steps.size() && eq - end <= 2 * ctx) {
        end = eq;
        continue;
      }
      end = std::min(end + ctx, steps.size());
      break;
    }
    size_t old_count = 0, new_count = 0;
    for (size_t j = start; j < end; ++j) {
      if (steps[j].op != Op::kInsert) ++old_count;
      if (steps[j].op != Op::kDelete) ++new_count;
    }
    // 1-based first line of the hunk on each side: the side's index at start.
    size_t old_start = steps[start].a + 1, new_start = steps[start].b + 1;
    out += "@@ -" + Range(old_start, old_count) + " +" + Range(new_start, new_count) + " @@\n";
    for (size_t j = start; j < end; ++j) {
      const Step& s = steps[j];
      if (s.op == Op::kEqual) AppendLine(out, ' ', a[s.a]);
      if (s.op == Op::kDelete) {
        AppendLine(out, '-', a[s.a]);
        if (stats) ++stats->removed;
      }
      if (s.op == Op::kInsert) {
        AppendLine(out, '+', b[s.b]);
        if (stats) ++stats->added;
      }
    }
    i = end;
  }
  return out;
}

}  // namespace sepp::tools
