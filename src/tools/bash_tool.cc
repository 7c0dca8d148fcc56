// bash: one shell command, run only through the sandbox launcher.
//
// `bash -c COMMAND` (or /bin/sh when there is no bash) runs in ctx.cwd under
// ctx.policy (default: sandbox::DefaultToolPolicy): in the session sandbox
// when this runs in its tool worker (tool_worker.h), else in a one-off
// sandbox of its own. stdout and stderr arrive
// interleaved in one stream; each chunk goes to ctx.on_output as it comes
// (secrets redacted) and into an OutputCollector, so memory stays bounded
// however much the command prints. A result over the limits keeps its head
// and tail, and the output is saved (redacted, mode 0600, capped) to
// <output_dir>/<id>.log, whose path the note names: in the session sandbox
// that is its private /tmp, where read and grep can open it. The text ends with the outcome: "exit code N",
// "killed by signal N", "killed after timeout of N s" or "aborted".
//
// In the session sandbox's worker a command can go on after its call
// (background_jobs.h): run_in_background starts it detached at once, and a
// running call the user sends to the background (CurrentCallDetach) is
// detached where it is; either way the result names its pid and its log.
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "base/ids.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "sandbox/defaults.h"
#include "sandbox/run.h"
#include "tools/args.h"
#include "tools/background_jobs.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace {

constexpr int64_t kDefaultTimeout = 120;
constexpr int64_t kMaxTimeout = 600;

std::string Shell() {
  for (const char* p : {"/bin/bash", "/usr/bin/bash"})
    if (::access(p, X_OK) == 0) return p;
  return "/bin/sh";
}

// A folder of this user's own: /tmp is shared (PrepareOutputFolder checks).
std::filesystem::path OutputDir(const ToolContext& ctx) {
  if (!ctx.output_dir.empty()) return ctx.output_dir;
  const char* tmp = std::getenv("TMPDIR");
  return std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
         ("sepp-" + std::to_string(::geteuid()) + "-output");
}

std::string FirstLine(const std::string& command, size_t max_bytes) {
  std::string_view s = Trim(command);
  size_t nl = s.find('\n');
  bool more = nl != std::string_view::npos;
  std::string_view line = Trim(s.substr(0, nl));
  if (line.size() > max_bytes) {
    line = line.substr(0, Utf8SafePrefix(line, max_bytes));
    more = true;
  }
  return std::string(line) + (more ? "…" : "");
}

class BashTool : public Tool {
 public:
  std::string name() const override { return "bash"; }
  bool runs_in_worker() const override { return true; }

  std::string description() const override {
    return "Run a shell command with bash -c in the working directory, inside the sandbox "
           "(by default: no network, writes only inside the workspace). stdout and stderr are "
           "returned together, followed by the exit code. Output over 2000 lines or 50 KB keeps "
           "its beginning and end; the full output is saved to a file named in the result. "
           "Timeout in seconds: default 120, at most 600. No interactive input (stdin is empty). "
           "run_in_background starts a long-running command (a server, a watcher) and returns at "
           "once with its pid and the log file its output goes to; later calls reach it (same "
           "network, files and processes), process_list shows it, process_signal stops it, and "
           "it ends with the session.";
  }

  Json parameters() const override {
    return Json::parse(R"({
      "type": "object",
      "properties": {
        "command": {"type": "string", "description": "The command line to run with bash -c."},
        "timeout": {"type": "integer", "minimum": 1, "maximum": 600, "description": "Seconds before the command and everything it started are killed. Default 120. Not for run_in_background."},
        "run_in_background": {"type": "boolean", "description": "Set to true to run this command in the background: the call returns at once with the process id and the log file of its output (read it later with read or tail). Default false."}
      },
      "required": ["command"],
      "additionalProperties": false
    })");
  }

  std::string Summary(const Json& args) const override {
    return SummaryLine("bash", FirstLine(StringOr(args, "command"), 60));
  }

 private:
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto command = RequiredString(args, "command");
    if (!command) return ErrorResult(command.error().message);
    if (Trim(*command).empty()) return ErrorResult("Invalid argument \"command\": it is empty.");
    if (command->find('\0') != std::string::npos)
      return ErrorResult("Invalid argument \"command\": it contains a NUL byte.");
    auto timeout = OptionalInt(args, "timeout", 1, kMaxTimeout);
    if (!timeout) return ErrorResult(timeout.error().message);
    int64_t timeout_s = timeout->value_or(kDefaultTimeout);
    auto background = OptionalBool(args, "run_in_background");
    if (!background) return ErrorResult(background.error().message);
    BackgroundJobs* jobs = SessionJobs();
    if (background->value_or(false)) {
      if (!jobs)
        return ErrorResult(
            "run_in_background works only in the session sandbox, whose end also ends the "
            "process: this call runs outside it (the session runs with --sandbox off, or this "
            "command needs a network or a policy of its own, which gives it a one-off sandbox "
            "that ends with the call). Run it without run_in_background.");
      if (std::string why = jobs->RefuseNew(); !why.empty()) return ErrorResult(why);
      if (timeout->has_value())
        return ErrorResult("Invalid argument \"timeout\": a background command has no timeout "
                           "(it runs until process_signal stops it or the session ends); leave it out.");
    }

    ToolResult r;
    if (ctx.cancel && ctx.cancel->cancelled()) {
      r.text = "aborted (the command was not started)";
      r.is_error = true;
      r.details = {{"cancelled", true}};
      return r;
    }

    std::error_code ec;
    std::filesystem::path cwd = ctx.cwd.empty() ? std::filesystem::current_path(ec) : ctx.cwd;
    sandbox::Policy default_policy;
    const sandbox::Policy* policy = ctx.policy;
    if (!policy) {
      default_policy = sandbox::DefaultToolPolicy(cwd);
      policy = &default_policy;
    }
    sandbox::RunSpec spec;
    spec.argv = {Shell(), "-c", *command};
    spec.cwd = cwd;
    spec.timeout_s = static_cast<double>(timeout_s);

    std::filesystem::path log = OutputDir(ctx) / (NewId() + ".log");
    OutputCollector collector(TruncateLimits{}, log);
    auto on_output = [&](std::string_view chunk) {
      collector.Append(chunk);
      if (ctx.on_output) ctx.on_output(Redact(chunk));
    };
    CancelToken at_once;  // run_in_background: detached as soon as it runs
    std::optional<Truncation> so_far;
    Result<std::filesystem::path> job_log = std::filesystem::path();
    if (jobs) {
      if (background->value_or(false)) {
        at_once.Cancel();
        spec.detach = &at_once;
      } else {
        spec.detach = CurrentCallDetach();
      }
      spec.on_detach = [&](pid_t pid, UniqueFd output) {
        so_far = collector.Finish();
        job_log = jobs->Adopt(pid, std::move(output), *command, Redact(SanitizeUtf8(so_far->text)));
      };
    }
    auto run = sandbox::Run(spec, *policy, on_output, ctx.cancel);
    Truncation out = so_far ? std::move(*so_far) : collector.Finish();
    if (!run.ok()) {
      std::string why = run.error().kind == "sandbox_unavailable"
                            ? "The sandbox refused to run the command: "
                            : "The command could not be started: ";
      return ErrorResult(why + run.error().message);
    }
    const sandbox::RunResult& res = *run;
    if (res.detached) return Detached(res.pid, background->value_or(false), out, job_log);

    r.text = Redact(SanitizeUtf8(out.text));
    if (!r.text.empty() && r.text.back() != '\n') r.text += '\n';
    if (out.truncated) {
      r.truncated = true;
      r.text += "[Output truncated: " + std::to_string(out.total_lines) + " lines (" +
                HumanBytes(out.total_bytes) + ") in total; showing the first " +
                std::to_string(out.head_lines) + " and last " + std::to_string(out.tail_lines) +
                " lines. ";
      if (collector.spilled())
        r.text += "Full output: " + log.string() +
                  " (use read with offset, or grep, to see the rest).]\n";
      else
        r.text += "The full output could not be saved (" + collector.spill_error() + ").]\n";
    }
    for (const auto& d : res.denials) r.text += "[sandbox] " + d.text + "\n";

    std::string outcome;
    if (res.cancelled) {
      outcome = "aborted";
    } else if (res.timed_out) {
      outcome = "killed after timeout of " + std::to_string(timeout_s) + " s";
    } else if (res.term_signal != 0) {
      const char* name = sigabbrev_np(res.term_signal);
      outcome = "killed by signal " + std::to_string(res.term_signal) +
                (name ? std::string(" (SIG") + name + ")" : "");
    } else {
      outcome = "exit code " + std::to_string(res.exit_code);
    }
    if (r.text.empty()) r.text = "(no output)\n";
    r.text += outcome;
    r.is_error = res.cancelled || res.timed_out || res.term_signal != 0 || res.exit_code != 0;
    r.details = {{"exit_code", res.exit_code},
                 {"signal", res.term_signal},
                 {"timed_out", res.timed_out},
                 {"cancelled", res.cancelled},
                 {"output_bytes", out.total_bytes},
                 {"outcome", outcome},  // the sidecar's receipt ends with it
                 {"denied", !res.denials.empty()}};  // the agent's tool.finished "denied" flag
    r.denials = std::move(res.denials);
    if (collector.spilled()) r.details["full_output_path"] = log.string();
    return r;
  }

  // The command runs on in the background: what it printed so far (a call
  // the user sent to the background), its pid and where the rest goes.
  static ToolResult Detached(pid_t pid, bool at_start, const Truncation& out,
                             const Result<std::filesystem::path>& log) {
    ToolResult r;
    if (!at_start) {
      r.text = Redact(SanitizeUtf8(out.text));
      if (!r.text.empty() && r.text.back() != '\n') r.text += '\n';
      r.truncated = out.truncated;
    }
    std::string where = log.ok() ? "its output goes to " + log->string() +
                                       " (read it with read, grep or tail; it keeps the newest "
                                       "4 MB, the older in the same name with .1)"
                                 : log.error().message;
    r.text += std::string(at_start ? "[started in the background" : "[sent to the background by the user") +
              ": pid " + std::to_string(pid) + " in the session sandbox; " + where +
              ". process_list shows it, process_signal stops it, and it ends with the session.]";
    r.details = {{"background", true}, {"pid", pid}, {"output_bytes", out.total_bytes}};
    if (log.ok()) r.details["log"] = log->string();
    return r;
  }
};

}  // namespace

std::unique_ptr<Tool> MakeBashTool() { return std::make_unique<BashTool>(); }

}  // namespace sepp::tools
