// The event log, SQLite and PostgreSQL side by side, one run each:
//   append   latency of one Append (a universal event of ~300 bytes), p50/p99
//   rate     events per second one stream sustains (appends back to back)
//   fan-out  from before an append on one log until a second log (another
//            server: its own connection and listener) is woken for it;
//            SQLite has no second server, so there it is another thread of
//            the same one
//   replay   Read of 100,000 events from offset 0, in pages of 1,000
// and the session tree store (session/store.h), SQLite and PostgreSQL:
//   tree append  latency of one Session::AppendMessage (~500 bytes), p50/p99
//   tree load    Store::Open of a 10,000-entry session (every entry read
//                and indexed; the payloads parse lazily)
// PostgreSQL runs in a throwaway cluster with its defaults (fsync and
// synchronous_commit on), on a unix socket, measured twice: as it is, and
// with the store URL's synchronous_commit=off. Usage: bench_store [events]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "pg/pg_cluster.h"
#include "session/event_log.h"
#include "session/store.h"

using namespace sepp;
using Clock = std::chrono::steady_clock;

namespace {

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

const std::string kEvent =
    R"({"sequence":1,"session_id":"bench","type":"item.delta","time":"2026-12-01T12:00:00Z",)"
    R"("data":{"item_id":"msg_0001","delta":"a piece of streamed text, about as long as one",)"
    R"("native":{"type":"content_block_delta","index":0}},"source":"agent","synthetic":false,)"
    R"("event_id":"evt_000000000001","native_session_id":"0193ab00000000000000000000000000"})";

struct Row {
  std::string store;
  double p50 = 0, p99 = 0, rate = 0, fan_p50 = 0, fan_p99 = 0, replay_ms = 0;
};

Row Measure(const std::string& name, session::EventLog& a, session::EventLog& b, int replay_n) {
  // replay_n == 0: no replay (filling 100k events one fsync'd commit at a
  // time takes minutes; a read does not depend on commit durability).
  Row row;
  row.store = name;
  // Streams of their own per run: the PostgreSQL rows share one database.
  static int run = 0;
  const std::string tag = std::to_string(getpid()) + "/" + std::to_string(++run);
  // append latency
  std::vector<double> lat;
  std::string s1 = "bench/append/" + tag;
  for (int i = 1; i <= 2000; ++i) {
    auto t = Clock::now();
    if (!a.Append(s1, i, i, kEvent).ok()) std::abort();
    lat.push_back(Ms(Clock::now() - t));
  }
  row.p50 = Percentile(lat, 0.5);
  row.p99 = Percentile(lat, 0.99);
  // rate
  std::string s2 = "bench/rate/" + tag;
  auto t0 = Clock::now();
  int n = 0;
  while (Clock::now() - t0 < std::chrono::seconds(3))
    if (a.AppendNext(s2, ++n, kEvent).ok() == false) std::abort();
  row.rate = n / std::chrono::duration<double>(Clock::now() - t0).count();
  // fan-out
  std::string s3 = "bench/fanout/" + tag;
  std::vector<double> fan;
  for (int i = 1; i <= 300; ++i) {
    std::atomic<bool> ready{false};
    Clock::time_point sent, heard;
    std::thread waiter([&] {
      ready = true;
      while (!b.WaitForAppend(s3, i - 1, std::chrono::seconds(5))) {
      }
      heard = Clock::now();
    });
    while (!ready) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // let it block
    sent = Clock::now();
    if (!a.Append(s3, i, i, kEvent).ok()) std::abort();
    waiter.join();
    fan.push_back(Ms(heard - sent));
  }
  row.fan_p50 = Percentile(fan, 0.5);
  row.fan_p99 = Percentile(fan, 0.99);
  if (replay_n == 0) return row;
  // replay
  std::string s4 = "bench/replay/" + tag;
  for (int i = 1; i <= replay_n; ++i)
    if (!a.Append(s4, i, i, kEvent).ok()) std::abort();
  auto r0 = Clock::now();
  int64_t cursor = 0;
  size_t got = 0;
  for (;;) {
    auto page = b.Read(s4, cursor, 1000);
    if (!page.ok()) std::abort();
    if (page->empty()) break;
    got += page->size();
    cursor = page->back().seq;
  }
  row.replay_ms = Ms(Clock::now() - r0);
  if (got != static_cast<size_t>(replay_n)) std::abort();
  return row;
}

struct TreeRow {
  std::string store;
  double p50 = 0, p99 = 0, load_ms = 0;
};

TreeRow MeasureTree(const std::string& name, session::Store& store) {
  TreeRow row;
  row.store = name;
  const Json message = {{"role", "assistant"},
                        {"content", {{{"type", "text"}, {"text", std::string(400, 'w')}}}}};
  auto s = store.Create({"/bench/tree", "anthropic", "m", ""});
  if (!s.ok()) std::abort();
  std::vector<double> lat;
  for (int i = 0; i < 1000; ++i) {
    auto t = Clock::now();
    if (!(*s)->AppendMessage(message).ok()) std::abort();
    lat.push_back(Ms(Clock::now() - t));
  }
  row.p50 = Percentile(lat, 0.5);
  row.p99 = Percentile(lat, 0.99);
  s->reset();
  // A 10k-entry session, imported in one transaction, then opened.
  session::SessionHeader h = session::NewHeader({"/bench/tree", "anthropic", "m", ""});
  std::vector<session::Entry> entries;
  std::string parent;
  for (int i = 0; i < 10000; ++i) {
    session::Entry e;
    e.type = "message";
    e.id = "e" + std::to_string(i);
    e.parent_id = parent;
    e.timestamp = h.created;
    e.set_data({{"type", "message"}, {"id", e.id},
                {"parentId", parent.empty() ? Json() : Json(parent)}, {"timestamp", h.created},
                {"message", message}});
    parent = e.id;
    entries.push_back(std::move(e));
  }
  if (!store.Import(h, entries).ok()) std::abort();
  auto t = Clock::now();
  auto opened = store.Open(h.id, session::OpenMode::kReadOnly);
  row.load_ms = Ms(Clock::now() - t);
  if (!opened.ok() || (*opened)->size() != 10000) std::abort();
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  int replay_n = argc > 1 ? std::atoi(argv[1]) : 100000;
  std::vector<Row> rows;
  char tmpl[] = "/tmp/sepp-store-bench-XXXXXX";
  std::filesystem::path root = mkdtemp(tmpl);
  std::vector<TreeRow> trees;
  {
    auto log = session::OpenEventLog("sqlite", root);
    if (!log.ok()) return std::fprintf(stderr, "%s\n", log.error().message.c_str()), 1;
    rows.push_back(Measure("sqlite (WAL, synchronous=NORMAL)", **log, **log, replay_n));
    auto store = session::OpenStore(session::StoreKind::kSqlite, root / "tree");
    if (!store.ok()) return std::fprintf(stderr, "%s\n", store.error().message.c_str()), 1;
    trees.push_back(MeasureTree("sqlite (WAL, synchronous=NORMAL)", **store));
  }
  std::filesystem::remove_all(root);
  if (std::string m = pgtest::PgCluster::MissingBinaries(); !m.empty()) {
    std::fprintf(stderr, "PostgreSQL: %s\n", m.c_str());
  } else {
    // One cluster with PostgreSQL's defaults (fsync, synchronous_commit
    // on); the second row is the same server with the store URL's
    // synchronous_commit=off, the documented choice (docs/serve.md).
    pgtest::PgCluster cluster("");
    if (Status s = cluster.Start(); !s.ok())
      return std::fprintf(stderr, "%s\n", s.error().message.c_str()), 1;
    struct Setting {
      const char* name;
      std::string url;
      bool replay;
    } settings[] = {
        {"postgres 15 (socket, defaults)", cluster.socket_url(), false},
        {"postgres 15 (socket, URL synchronous_commit=off)",
         cluster.socket_url() + "?synchronous_commit=off", true},
    };
    for (const Setting& setting : settings) {
      auto a = session::OpenEventLog(setting.url, "/nonexistent");
      auto b = session::OpenEventLog(setting.url, "/nonexistent");
      if (!a.ok() || !b.ok()) return std::fprintf(stderr, "could not open the PostgreSQL log\n"), 1;
      rows.push_back(Measure(setting.name, **a, **b, setting.replay ? replay_n : 0));
      auto store = session::OpenUrlStore(setting.url);
      if (!store.ok()) return std::fprintf(stderr, "%s\n", store.error().message.c_str()), 1;
      trees.push_back(MeasureTree(setting.name, **store));
    }
  }
  std::printf("%-50s %9s %9s %10s %10s %10s %12s\n", "store", "append50", "append99", "events/s",
              "fanout50", "fanout99", "replay");
  for (const Row& r : rows)
    std::printf("%-50s %7.3fms %7.3fms %10.0f %8.3fms %8.3fms %s\n", r.store.c_str(), r.p50, r.p99,
                r.rate, r.fan_p50, r.fan_p99,
                r.replay_ms > 0 ? (std::to_string(static_cast<int>(r.replay_ms)) + "ms/" +
                                   std::to_string(replay_n / 1000) + "k").c_str()
                                : "-");
  std::printf("\n%-50s %11s %11s %14s\n", "session tree store", "append50", "append99",
              "load 10k");
  for (const TreeRow& r : trees)
    std::printf("%-50s %9.3fms %9.3fms %12.1fms\n", r.store.c_str(), r.p50, r.p99, r.load_ms);
  return 0;
}
