#include "llm/request_body.h"

#include <algorithm>

#include "llm/anthropic.h"
#include "llm/openai_responses.h"

namespace sepp::llm {
namespace {

bool SameTools(const std::vector<ToolSpec>& a, const std::vector<ToolSpec>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ToolSpec& x, const ToolSpec& y) {
    return x.name == y.name && x.description == y.description && x.parameters == y.parameters;
  });
}

// The key as nlohmann writes it: quoted, escaped like any string.
std::string QuotedKey(const std::string& key) { return DumpJson(Json(key)); }

}  // namespace

std::string DumpObjectWith(const Json& object,
                           const std::vector<std::pair<std::string, std::string>>& raw) {
  if (raw.empty() || !object.is_object()) return DumpJson(object);
  std::vector<const std::pair<std::string, std::string>*> extra;
  for (const auto& r : raw) extra.push_back(&r);
  std::sort(extra.begin(), extra.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string out = "{";
  auto member = [&](const std::string& key, const std::string& text) {
    if (out.size() > 1) out += ',';
    out += QuotedKey(key);
    out += ':';
    out += text;
  };
  size_t next = 0;
  for (auto it = object.begin(); it != object.end(); ++it) {
    while (next < extra.size() && extra[next]->first < it.key()) {
      member(extra[next]->first, extra[next]->second);
      ++next;
    }
    member(it.key(), DumpJson(it.value()));
  }
  for (; next < extra.size(); ++next) member(extra[next]->first, extra[next]->second);
  out += '}';
  return out;
}

std::shared_ptr<const RequestBodyWriter::Fixed> RequestBodyWriter::FixedFor(const Request& request) {
  {
    std::lock_guard lock(mu_);
    if (fixed_ && fixed_->system == request.system && SameTools(fixed_->tools, request.tools))
      return fixed_;
  }
  auto made = std::make_shared<Fixed>();
  made->system = request.system;
  made->tools = request.tools;
  Json members = api_ == ApiKind::kAnthropic     ? anthropic::FixedMembers(request)
                 : api_ == ApiKind::kOpenAiChat ? openai_chat::FixedMembers(request)
                                                : openai_responses::FixedMembers(request);
  for (auto it = members.begin(); it != members.end(); ++it)
    made->members.emplace_back(it.key(), DumpJson(it.value()));
  std::lock_guard lock(mu_);
  fixed_ = made;
  return made;
}

std::string RequestBodyWriter::Write(const Request& request) {
  std::shared_ptr<const Fixed> fixed = FixedFor(request);
  Json varying = api_ == ApiKind::kAnthropic
                     ? anthropic::BuildRequest(request, wire::Members::kVarying)
                 : api_ == ApiKind::kOpenAiChat
                     ? openai_chat::BuildRequest(request, chat_, wire::Members::kVarying)
                     : openai_responses::BuildRequest(request, wire::Members::kVarying);
  return DumpObjectWith(varying, fixed->members);
}

}  // namespace sepp::llm
