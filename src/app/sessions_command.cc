// `sepp sessions`: list, show, tree, export, rm and convert saved sessions.
//
// Sessions live under SeppHome()/sessions (SEPP_HOME overrides ~/.sepp). The
// command looks in the JSONL store and, when sessions.db exists, the SQLite
// store too, so ids work wherever a session lives; --store limits it to one,
// or names a PostgreSQL store by its URL (the one `sepp serve --store` uses).
// IDs accept unique prefixes. Output goes to stdout, errors to stderr.
// Exit status: 0 done, 1 error (unknown or ambiguous id, locked, I/O),
// 2 usage.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "app/commands.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "base/terminal_text.h"
#include "session/render.h"
#include "app/session_stores.h"
#include "session/store.h"

namespace sepp::app {
namespace {

namespace fs = std::filesystem;
using session::OpenMode;
using session::Session;
using session::SessionSummary;
using session::Store;
using session::StoreKind;

constexpr int kOk = 0, kError = 1, kUsage = 2;

// Session text is what a model and its tools wrote: on a terminal its
// control characters are shown, not obeyed (base/terminal_text.h); into a
// file or pipe it stays raw. Messages on stderr may quote it too.
int Fail(const std::string& message) {
  std::fprintf(stderr, "sepp sessions: %s\n", VisibleControls(message).c_str());
  return kError;
}

void Print(std::string_view text) {
  static const bool terminal = isatty(1) == 1;
  std::string shown = terminal ? VisibleControls(text) : std::string(text);
  std::fwrite(shown.data(), 1, shown.size(), stdout);
}

// The store holding the session an id (prefix) names, and its full id.
Result<std::pair<Store*, std::string>> Locate(Stores& stores, const std::string& prefix) {
  std::vector<std::pair<Store*, std::string>> found;
  std::optional<Error> first_error;
  for (auto& store : stores.open) {
    Result<std::string> id = store->Resolve(prefix);
    if (id.ok()) {
      found.emplace_back(store.get(), *id);
    } else if (id.error().kind == "ambiguous" || id.error().kind == "invalid_argument") {
      return id.error();
    } else if (!first_error) {
      first_error = id.error();
    }
  }
  if (found.size() == 1) return found.front();
  if (found.empty())
    return first_error ? *first_error : Error::Make("no session matches \"" + prefix + "\"");
  return Error::Make("\"" + prefix + "\" matches sessions in both stores: " + found[0].second +
                         " (jsonl) and " + found[1].second +
                         " (sqlite); give more of the id or use --store",
                     "ambiguous");
}

Result<std::unique_ptr<Session>> OpenReadOnly(Stores& stores, const std::string& prefix) {
  auto where = Locate(stores, prefix);
  if (!where.ok()) return where.error();
  return where->first->Open(where->second, OpenMode::kReadOnly);
}

std::string When(int64_t ms) {
  std::string iso = Iso8601(ms);  // 2026-11-29T14:39:14.123Z
  return iso.size() >= 16 ? iso.substr(0, 10) + " " + iso.substr(11, 5) : iso;
}

std::string Pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string OneLine(std::string text, size_t max) {
  text = SanitizeUtf8(text);
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() > max) text = text.substr(0, Utf8SafePrefix(text, max - 1)) + "…";
  return text;
}

// A folder in a narrow column keeps its end, the part that tells folders
// apart: "…/work/project" rather than "/home/someone/wor…".
std::string PathTail(const std::string& path, size_t max) {
  std::string text = OneLine(path, path.size() + 1);
  if (text.size() <= max) return text;
  size_t start = text.size() - (max - 3);  // "…" is three bytes
  while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
  return "…" + text.substr(start);
}

int List(Stores& stores, bool all) {
  std::string cwd = fs::current_path().string();
  std::vector<SessionSummary> rows;
  for (auto& store : stores.open) {
    auto r = store->List(all ? std::nullopt : std::optional<std::string>(cwd));
    if (!r.ok()) return Fail(r.error().message);
    rows.insert(rows.end(), r->begin(), r->end());
  }
  std::sort(rows.begin(), rows.end(), [](const SessionSummary& a, const SessionSummary& b) {
    return a.modified_ms > b.modified_ms;
  });
  if (rows.empty()) {
    std::fprintf(stderr, "no sessions %s\n",
                 all ? ("in " + (stores.open.size() == 1 ? stores.open[0]->location()
                                                          : stores.root.string()))
                           .c_str()
                     : ("for " + cwd + " (use --all to see every folder)").c_str());
    return kOk;
  }
  std::string out = Pad("ID", 34) + Pad("MODIFIED", 18) + Pad("MSGS", 6) +
                    (all ? Pad("FOLDER", 32) : "") + "FIRST PROMPT\n";
  for (const SessionSummary& s : rows) {
    std::string msgs = std::to_string(s.message_count);
    out += Pad(s.id, 34) + Pad(When(s.modified_ms), 18) + Pad(msgs, 6);
    if (all) out += Pad(PathTail(s.cwd, 30), 32);
    out += OneLine(s.first_prompt.empty() ? "-" : s.first_prompt, 60) + "\n";
  }
  Print(out);
  return kOk;
}

int Show(Stores& stores, const std::string& id, const std::string& leaf) {
  auto s = OpenReadOnly(stores, id);
  if (!s.ok()) return Fail(s.error().message);
  if (!leaf.empty() && !(*s)->Find(leaf))
    return Fail("session " + (*s)->id() + " has no entry " + leaf +
                " (see `sepp sessions tree " + (*s)->id() + "`)");
  Print(Redact(session::RenderBranchText(**s, leaf)));
  return kOk;
}

int Tree(Stores& stores, const std::string& id) {
  auto s = OpenReadOnly(stores, id);
  if (!s.ok()) return Fail(s.error().message);
  Print(session::RenderTree(**s));
  return kOk;
}

int Export(Stores& stores, const std::string& id, const std::string& format,
           const std::string& output) {
  auto s = OpenReadOnly(stores, id);
  if (!s.ok()) return Fail(s.error().message);
  std::string text = format == "html"    ? session::ExportHtml(**s)
                     : format == "jsonl" ? session::ExportJsonl(**s)
                                         : session::ExportMarkdown(**s);
  // Sessions sepp wrote are already clean; a file from elsewhere may not be.
  if (ContainsSecret(text)) text = Redact(text);
  if (output.empty() || output == "-") {
    Print(text);
    return kOk;
  }
  if (Status w = WriteFileAtomic(output, text, 0600); !w.ok()) return Fail(w.error().message);
  std::fprintf(stderr, "wrote %s\n", output.c_str());
  return kOk;
}

int Remove(Stores& stores, const std::string& id) {
  auto where = Locate(stores, id);
  if (!where.ok()) return Fail(where.error().message);
  if (Status s = where->first->Remove(where->second); !s.ok()) return Fail(s.error().message);
  std::printf("removed session %s\n", where->second.c_str());
  return kOk;
}

// Moves sessions from the other store into `to`: copy, check, then delete the
// original. Each session is held with the writer lock while it moves.
int Convert(const std::string& to_name, const std::string& id, bool all) {
  Result<StoreKind> to_kind = session::ParseStoreKind(to_name);
  if (!to_kind.ok()) return Fail(to_kind.error().message);
  StoreKind from_kind = *to_kind == StoreKind::kSqlite ? StoreKind::kJsonl : StoreKind::kSqlite;
  fs::path root = session::DefaultSessionsRoot();
  std::error_code ec;
  if (from_kind == StoreKind::kSqlite && !fs::exists(root / "sessions.db", ec)) {
    std::fprintf(stderr, "no SQLite sessions to convert (%s does not exist)\n",
                 (root / "sessions.db").c_str());
    return all ? kOk : kError;
  }
  auto from = session::OpenStore(from_kind, root);
  if (!from.ok()) return Fail(from.error().message);
  auto to = session::OpenStore(*to_kind, root);
  if (!to.ok()) return Fail(to.error().message);

  std::vector<std::string> ids;
  if (all) {
    auto rows = (*from)->List(std::nullopt);
    if (!rows.ok()) return Fail(rows.error().message);
    for (const SessionSummary& s : *rows) ids.push_back(s.id);
  } else {
    auto full = (*from)->Resolve(id);
    if (!full.ok()) return Fail(full.error().message);
    ids.push_back(*full);
  }
  int failures = 0;
  for (const std::string& sid : ids) {
    auto src = (*from)->Open(sid, OpenMode::kAppend);
    if (!src.ok()) {
      Fail(src.error().message);
      ++failures;
      continue;
    }
    std::vector<session::Entry> entries((*src)->entries().begin(), (*src)->entries().end());
    auto copy = (*to)->Import((*src)->header(), entries);
    if (!copy.ok()) {
      Fail("could not convert " + sid + ": " + copy.error().message);
      ++failures;
      continue;
    }
    bool same = (*copy)->size() == entries.size();
    copy->reset();
    src->reset();  // release the lock so Remove can take it
    if (!same) {
      Fail("could not convert " + sid + ": the copy differs; the original was kept");
      ++failures;
      continue;
    }
    if (Status rm = (*from)->Remove(sid); !rm.ok()) {
      Fail("converted " + sid + " but could not remove the original: " + rm.error().message);
      ++failures;
      continue;
    }
    std::printf("converted %s to %s\n", sid.c_str(), std::string(session::StoreKindName(*to_kind)).c_str());
  }
  if (ids.empty()) std::fprintf(stderr, "no %s sessions to convert\n",
                                std::string(session::StoreKindName(from_kind)).c_str());
  return failures ? kError : kOk;
}

}  // namespace

int RunSessionsCommand(int argc, char** argv) {
  RegisterSecretsFromEnvironment();  // so show/export never print a key
  CLI::App app{"List, show, export and manage saved sessions (in $SEPP_HOME/sessions).",
               "sepp sessions"};
  app.require_subcommand(1);
  app.fallthrough();  // --store may come after the subcommand too
  std::string store_kind;
  app.add_option("--store", store_kind,
                 "only look in this store: jsonl, sqlite, or a `sepp serve` PostgreSQL store "
                 "given by its URL, postgres://user@host:port/database (password from PGPASSWORD)");

  bool all = false;
  auto* list = app.add_subcommand("list", "sessions of this folder (or --all), newest first");
  list->add_flag("-a,--all", all, "sessions of every folder");

  std::string id, leaf, format = "md", output;
  auto* show = app.add_subcommand("show", "the active branch of a session as readable text");
  show->add_option("id", id, "session id or unique prefix")->required();
  show->add_option("--leaf", leaf, "show the branch ending at this entry instead");

  auto* tree = app.add_subcommand("tree", "every branch of a session as a tree");
  tree->add_option("id", id, "session id or unique prefix")->required();

  auto* exp = app.add_subcommand("export", "write a session as Markdown, HTML or JSONL");
  exp->add_option("id", id, "session id or unique prefix")->required();
  exp->add_option("-f,--format", format, "md (default), html or jsonl")
      ->check(CLI::IsMember({"md", "html", "jsonl"}));
  exp->add_option("-o,--output", output, "file to write (default: stdout)");

  auto* rm = app.add_subcommand("rm", "delete a session");
  rm->add_option("id", id, "session id or unique prefix")->required();

  std::string to;
  bool convert_all = false;
  auto* convert = app.add_subcommand("convert", "move sessions between the JSONL and SQLite stores");
  convert->add_option("--to", to, "target store: sqlite or jsonl")
      ->required()
      ->check(CLI::IsMember({"sqlite", "jsonl"}));
  convert->add_option("id", id, "session id or unique prefix");
  convert->add_flag("--all", convert_all, "every session of the other store");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }

  if (convert->parsed()) {
    if (convert_all == !id.empty()) {
      std::fprintf(stderr, "sepp sessions convert: give one session id or --all\n");
      return kUsage;
    }
    return Convert(to, id, convert_all);
  }
  Result<Stores> stores = OpenStores(store_kind);
  if (!stores.ok()) return Fail(stores.error().message);
  if (list->parsed()) return List(*stores, all);
  if (show->parsed()) return Show(*stores, id, leaf);
  if (tree->parsed()) return Tree(*stores, id);
  if (exp->parsed()) return Export(*stores, id, format, output);
  if (rm->parsed()) return Remove(*stores, id);
  return kUsage;
}

}  // namespace sepp::app
