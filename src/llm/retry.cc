#include "llm/retry.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "base/log.h"

namespace sepp::llm {

RetryEnv RetryEnv::Real() {
  RetryEnv env;
  env.random01 = [] {
    thread_local std::mt19937_64 rng(std::random_device{}());
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  };
  env.now_s = [] {
    return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
  };
  env.sleep = CancellableSleep;
  return env;
}

double BackoffDelay(const RetryPolicy& policy, int retry, double random01) {
  double nominal = policy.base_delay_s * std::pow(2.0, std::max(0, retry - 1));
  nominal = std::min(nominal, policy.max_delay_s);
  random01 = std::clamp(random01, 0.0, 1.0);
  return nominal * (0.5 + 0.5 * random01);
}

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool ParseNumber(std::string_view s, double* out) {
  if (s.empty() || s.size() > 20) return false;
  bool dot = false;
  for (char c : s) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  if (s == ".") return false;
  *out = std::stod(std::string(s));
  return true;
}

std::string_view TrimView(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

int64_t ParseHttpDate(std::string_view text) {
  static const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                  "jul", "aug", "sep", "oct", "nov", "dec"};
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      tokens.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  if (tokens.size() > 10) return -1;
  int month = -1;
  bool month_first = false;  // asctime: month before the day number
  std::vector<int64_t> numbers;
  for (const auto& t : tokens) {
    if (std::isdigit(static_cast<unsigned char>(t[0]))) {
      if (t.size() > 4 || t.find_first_not_of("0123456789") != std::string::npos) return -1;
      numbers.push_back(std::stoll(t));
    } else if (t.size() == 3 && month < 0) {
      for (int i = 0; i < 12; ++i) {
        if (t == kMonths[i]) {
          month = i + 1;
          month_first = numbers.empty();
        }
      }
    }
  }
  if (month < 0 || numbers.size() != 5) return -1;
  int64_t day, year, h, m, s;
  if (month_first) {  // Sun Nov  6 08:49:37 1994
    day = numbers[0], h = numbers[1], m = numbers[2], s = numbers[3], year = numbers[4];
  } else {  // Sun, 06 Nov 1994 08:49:37 GMT / Sunday, 06-Nov-94 08:49:37 GMT
    day = numbers[0], year = numbers[1], h = numbers[2], m = numbers[3], s = numbers[4];
  }
  if (year < 100) year += year < 70 ? 2000 : 1900;
  if (day < 1 || day > 31 || h > 23 || m > 59 || s > 60 || year < 1970 || year > 9999) return -1;
  return DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
         h * 3600 + m * 60 + s;
}

double ParseRetryAfter(std::string_view value, int64_t now_s) {
  value = TrimView(value);
  double seconds;
  if (ParseNumber(value, &seconds)) return seconds;
  int64_t when = ParseHttpDate(value);
  if (when < 0) return -1;
  return std::max<double>(0, static_cast<double>(when - now_s));
}

double RetryAfterSeconds(const net::HttpResponseHead& head, int64_t now_s) {
  std::string ms = head.Header("retry-after-ms");
  double value;
  if (ParseNumber(TrimView(ms), &value)) return value / 1000.0;
  std::string ra = head.Header("retry-after");
  if (ra.empty()) return -1;
  return ParseRetryAfter(ra, now_s);
}

Status CancellableSleep(double seconds, CancelToken* cancel) {
  if (seconds <= 0) return cancel && cancel->cancelled() ? Status(Error::Make("aborted", "aborted")) : Ok();
  auto state = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
  std::unique_ptr<CancelToken::Registration> reg;
  if (cancel) {
    reg = cancel->OnCancel([state] {
      std::lock_guard<std::mutex> lock(state->first);
      state->second.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(state->first);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  state->second.wait_until(lock, deadline, [&] { return cancel && cancel->cancelled(); });
  if (cancel && cancel->cancelled()) return Error::Make("aborted", "aborted");
  return Ok();
}

uint64_t NewToolsStamp() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

bool RetryStopper::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!wait_) return false;
  wait_->Cancel();
  wait_ = nullptr;
  return true;
}

void RetryStopper::SetWait(CancelToken* wait) {
  std::lock_guard<std::mutex> lock(mu_);
  wait_ = wait;
}

Result<Message> RunWithRetries(const RetryPolicy& policy, const RetryEnv& env,
                               const StreamSink& sink, CancelToken* cancel,
                               const std::function<AttemptResult(int attempt)>& attempt) {
  for (int n = 1;; ++n) {
    if (cancel && cancel->cancelled()) return Error::Make("aborted", "aborted");
    AttemptResult result = attempt(n);
    if (auto* m = std::get_if<Message>(&result)) return std::move(*m);
    Failure& f = std::get<Failure>(result);
    if (cancel && cancel->cancelled()) return Error::Make("aborted", "aborted");
    if (!f.retryable) return f.error;
    int retries_done = n - 1;
    if (retries_done >= policy.max_retries) {
      if (retries_done > 0) {
        f.error.message += " (gave up after " + std::to_string(retries_done) +
                           (retries_done == 1 ? " retry)" : " retries)");
      }
      return f.error;
    }
    double delay;
    if (f.retry_after_s >= 0) {
      if (f.retry_after_s > policy.max_retry_after_s) {
        f.error.message += " (the server asked to wait " +
                           std::to_string(static_cast<int64_t>(std::ceil(f.retry_after_s))) +
                           " s; try again later)";
        return f.error;
      }
      delay = f.retry_after_s;
    } else {
      delay = BackoffDelay(policy, n, env.random01 ? env.random01() : 1.0);
    }
    log::Info("retrying after " + std::to_string(delay) + " s: " + f.error.message);
    // The wait ends early on an abort (cancel) or on the stopper; only the
    // abort ends the call as aborted: a stopped retry returns this failure.
    // The stopper knows of the wait before anyone hears of the retry, so a
    // stop sent on seeing it always lands.
    CancelToken wait;
    std::unique_ptr<CancelToken::Registration> link;
    if (cancel) link = cancel->OnCancel([&wait] { wait.Cancel(); });
    if (sink.retry_stopper) sink.retry_stopper->SetWait(&wait);
    if (sink.on_retry) sink.on_retry(f.error.message, n, delay);
    Status slept = env.sleep ? env.sleep(delay, &wait) : CancellableSleep(delay, &wait);
    if (sink.retry_stopper) sink.retry_stopper->SetWait(nullptr);
    link.reset();
    if (cancel && cancel->cancelled()) return Error::Make("aborted", "aborted");
    if (!slept.ok() || wait.cancelled()) {
      f.error.message += " (the retry was cancelled)";
      return f.error;
    }
  }
}

}  // namespace sepp::llm
