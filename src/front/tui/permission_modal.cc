#include "front/tui/permission_modal.h"

#include <algorithm>
#include <functional>

#include "base/json.h"

namespace sepp::front::tui {
namespace {

using agent::PermissionChoice;

constexpr Style kTitleStyle{.fg = 4, .bold = true};
constexpr Style kDimStyle{.dim = true};
constexpr Style kSelectedStyle{.inverse = true};
constexpr Style kDenialStyle{.fg = 2};

constexpr PermissionChoice kChoices[] = {PermissionChoice::kAllowOnce, PermissionChoice::kAllowSession,
                                         PermissionChoice::kAllowProject, PermissionChoice::kDeny};
constexpr const char* kLabels[] = {"allow once", "allow for this session", "always for this project",
                                   "deny"};

std::string WideningText(const agent::Widening& w) {
  switch (w.kind) {
    case agent::Widening::Kind::kDomain: return "network access to " + w.target;
    case agent::Widening::Kind::kWritePath: return "write access to " + w.target;
    case agent::Widening::Kind::kReadPath: return "read access to " + w.target;
  }
  return w.target;
}

// The call being retried in a few words: bash's command, else its arguments.
std::string CallText(const agent::PermissionRequest& r) {
  if (r.args.is_object() && r.args.contains("command") && r.args["command"].is_string())
    return r.args["command"].get<std::string>();
  if (r.args.is_object() && r.args.contains("path") && r.args["path"].is_string())
    return r.args["path"].get<std::string>();
  return DumpJson(r.args);
}

}  // namespace

void PermissionModal::Open(const runtime::PendingPermission& pending) {
  for (const auto& p : queue_)
    if (p.request.id == pending.request.id) return;
  if (queue_.empty()) selected_ = 0;
  queue_.push_back(pending);
}

void PermissionModal::Drop(const std::string& request_id) {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [&](const auto& p) { return p.request.id == request_id; });
  if (it == queue_.end()) return;
  if (it == queue_.begin()) selected_ = 0;
  queue_.erase(it);
}

PermissionModal::Answer PermissionModal::Choose(PermissionChoice c) {
  Answer a{queue_.front().request.id, {}};
  a.answer.choice = c;
  a.answer.source = "user";
  if (c == PermissionChoice::kDeny) a.answer.message = "the user denied it in the terminal UI";
  queue_.erase(queue_.begin());
  selected_ = 0;
  return a;
}

// A trust request (a project's code, an extension's capabilities): allow
// records the content-keyed trust, deny runs nothing.
bool IsTrust(const agent::PermissionRequest& r) { return r.kind != agent::RequestKind::kSandbox; }

std::optional<PermissionModal::Answer> HandleTrust(const InputEvent& e, int* selected,
                                                   const std::function<PermissionModal::Answer(PermissionChoice)>& choose) {
  switch (e.key) {
    case Key::kUp:
    case Key::kDown:
    case Key::kTab: *selected = 1 - *selected; return std::nullopt;
    case Key::kEnter: return choose(*selected == 0 ? PermissionChoice::kAllowProject : PermissionChoice::kDeny);
    case Key::kEscape: return choose(PermissionChoice::kDeny);
    case Key::kChar: break;
    default: return std::nullopt;
  }
  if (e.mods & (kCtrl | kAlt)) return std::nullopt;
  switch (e.codepoint) {
    case '1': case 'y': case 'a': return choose(PermissionChoice::kAllowProject);
    case '2': case 'n': case 'd': return choose(PermissionChoice::kDeny);
    default: return std::nullopt;
  }
}

std::optional<PermissionModal::Answer> PermissionModal::Handle(const InputEvent& e) {
  if (queue_.empty() || e.type != InputEvent::Type::kKey) return std::nullopt;
  if (IsTrust(queue_.front().request))
    return HandleTrust(e, &selected_, [this](PermissionChoice c) { return Choose(c); });
  switch (e.key) {
    case Key::kUp: selected_ = (selected_ + 3) % 4; return std::nullopt;
    case Key::kDown:
    case Key::kTab: selected_ = (selected_ + 1) % 4; return std::nullopt;
    case Key::kEnter: return Choose(kChoices[selected_]);
    case Key::kEscape: return Choose(PermissionChoice::kDeny);
    case Key::kChar: break;
    default: return std::nullopt;
  }
  if (e.mods & (kCtrl | kAlt)) return std::nullopt;
  switch (e.codepoint) {
    case '1': case 'y': return Choose(PermissionChoice::kAllowOnce);
    case '2': case 's': return Choose(PermissionChoice::kAllowSession);
    case '3': case 'p': return Choose(PermissionChoice::kAllowProject);
    case '4': case 'n': case 'd': return Choose(PermissionChoice::kDeny);
    default: return std::nullopt;
  }
}

std::vector<Line> PermissionModal::Render() const {
  std::vector<Line> out;
  if (queue_.empty()) return out;
  const agent::PermissionRequest& r = queue_.front().request;
  if (IsTrust(r)) {
    std::string title = r.kind == agent::RequestKind::kProjectTrust
                            ? "Trust this project's code? " + r.subject
                            : "Start the extension " + r.subject + " with these capabilities?";
    if (queue_.size() > 1) title += " (1 of " + std::to_string(queue_.size()) + ")";
    out.push_back(Line{}.Add(Sanitize(title), kTitleStyle));
    for (const auto& item : r.items) {
      out.push_back(Line{}.Add("  " + Sanitize(item.detail) + ": ", kDimStyle).Add(Sanitize(item.path)));
      if (!item.sha256.empty())
        out.push_back(Line{}.Add("      sha256 " + item.sha256.substr(0, 16) + "…", kDimStyle));
      for (const auto& c : item.capabilities) out.push_back(Line{}.Add("      may: ", kDimStyle).Add(Sanitize(c)));
    }
    if (!r.justification.empty())
      for (auto& l : LinesFromText("  " + r.justification, kDimStyle)) out.push_back(std::move(l));
    const char* labels[] = {"allow (remembered until a file changes)", "deny"};
    for (int i = 0; i < 2; ++i) {
      Line l;
      l.Add(i == selected_ ? " \u203a " : "   ");
      l.Add(std::to_string(i + 1) + ". " + labels[i], i == selected_ ? kSelectedStyle : Style{});
      out.push_back(std::move(l));
    }
    out.push_back(Line{}.Add("  1-2 or Up/Down and Enter to choose, Esc denies", kDimStyle));
    return out;
  }
  std::string title = "Permission: " + r.tool + " asks to run again with more access";
  if (queue_.size() > 1) title += " (1 of " + std::to_string(queue_.size()) + ")";
  if (!r.parent_call_id.empty()) title += " (from a sub-agent)";
  out.push_back(Line{}.Add(title, kTitleStyle));
  out.push_back(Line{}.Add("  call: ", kDimStyle).Add(Sanitize(CallText(r))));
  for (const auto& d : r.denials) {
    // The kind and target when the words were understood, else the words.
    std::string what = std::string(sandbox::DenialKindName(d.kind));
    if (d.kind == sandbox::DenialKind::kOther || d.target.empty()) what = d.text;
    else what += " " + d.target;
    out.push_back(Line{}.Add("  the sandbox refused: ", kDimStyle).Add(Sanitize(what), kDenialStyle));
  }
  for (const auto& w : r.widenings) out.push_back(Line{}.Add("  wants: ", kDimStyle).Add(Sanitize(WideningText(w))));
  if (!r.justification.empty())
    for (auto& l : LinesFromText("  reason: " + r.justification)) out.push_back(std::move(l));
  for (int i = 0; i < 4; ++i) {
    Line l;
    std::string label = std::to_string(i + 1) + ". " + kLabels[i];
    l.Add(i == selected_ ? " \u203a " : "   ");
    l.Add(label, i == selected_ ? kSelectedStyle : Style{});
    out.push_back(std::move(l));
  }
  if (selected_ == 2) {
    out.push_back(Line{}.Add("  saved to sepp's grants for this project as:", kDimStyle));
    for (auto& l : LinesFromText(agent::DescribeAsPolicyToml(r.widenings), kDimStyle)) {
      Line row;
      row.Add("    ");
      for (auto& s : l.spans) row.spans.push_back(std::move(s));
      if (!l.spans.empty()) out.push_back(std::move(row));
    }
  }
  out.push_back(Line{}.Add("  1-4 or Up/Down and Enter to choose, Esc denies", kDimStyle));
  return out;
}

}  // namespace sepp::front::tui
