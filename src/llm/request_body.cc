#include "llm/request_body.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "llm/anthropic.h"
#include "llm/openai_responses.h"
#include "llm/wire.h"

namespace sepp::llm {
namespace {

bool SameTools(const std::vector<ToolSpec>& a, const std::vector<ToolSpec>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ToolSpec& x, const ToolSpec& y) {
    return x.name == y.name && x.description == y.description && x.parameters == y.parameters;
  });
}

// The key as nlohmann writes it: quoted, escaped like any string.
std::string QuotedKey(std::string_view key) { return DumpJson(Json(std::string(key))); }

// An array's text without its brackets: the items joined by commas.
std::string_view Inner(const std::string& array_text) {
  return std::string_view(array_text).substr(1, array_text.size() - 2);
}

void Mix(uint64_t* h, uint64_t v) { *h ^= v + 0x9e3779b97f4a7c15ULL + (*h << 6) + (*h >> 2); }
void MixText(uint64_t* h, std::string_view s) {
  Mix(h, std::hash<std::string_view>{}(s));
  Mix(h, s.size());
}

// Every value, its type and (for objects) keys mixed in; std::hash<Json>
// does the same through nlohmann's items(), which builds a string per key
// and per array index.
void MixJson(uint64_t* h, const Json& j) {
  Mix(h, static_cast<uint64_t>(j.type()));
  switch (j.type()) {
    case Json::value_t::string: MixText(h, j.get_ref<const std::string&>()); break;
    case Json::value_t::boolean: Mix(h, j.get<bool>()); break;
    case Json::value_t::number_integer: Mix(h, static_cast<uint64_t>(j.get<int64_t>())); break;
    case Json::value_t::number_unsigned: Mix(h, j.get<uint64_t>()); break;
    case Json::value_t::number_float: Mix(h, std::hash<double>{}(j.get<double>())); break;
    case Json::value_t::object:
      Mix(h, j.size());
      for (const auto& [key, value] : j.get_ref<const Json::object_t&>()) {
        MixText(h, key);
        MixJson(h, value);
      }
      break;
    case Json::value_t::array:
      Mix(h, j.size());
      for (const Json& value : j.get_ref<const Json::array_t&>()) MixJson(h, value);
      break;
    default:  // null, binary (never in arguments), discarded
      Mix(h, std::hash<Json>{}(j));
      break;
  }
}

}  // namespace

uint64_t MessageHash(const Message& m) {
  uint64_t h = static_cast<uint64_t>(m.role) + 1;
  MixText(&h, m.tool_call_id);
  MixText(&h, m.tool_name);
  Mix(&h, m.is_error);
  Mix(&h, m.content.size());
  for (const auto& b : m.content) {
    Mix(&h, static_cast<uint64_t>(b.kind));
    MixText(&h, b.text);
    MixText(&h, b.signature);
    Mix(&h, b.redacted);
    MixText(&h, b.id);
    MixText(&h, b.name);
    MixJson(&h, b.arguments);
    MixText(&h, b.arguments_error);
    MixText(&h, b.raw_arguments);
  }
  return h;
}

std::string DumpObjectWith(const Json& object,
                           const std::vector<std::pair<std::string_view, std::string_view>>& raw) {
  if (raw.empty() || !object.is_object()) return DumpJson(object);
  std::vector<const std::pair<std::string_view, std::string_view>*> extra;
  size_t size = 2;
  for (const auto& r : raw) {
    extra.push_back(&r);
    size += r.first.size() + r.second.size() + 4;
  }
  std::sort(extra.begin(), extra.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string out;
  out.reserve(size + 256);
  out += '{';
  auto member = [&](std::string_view key, std::string_view text) {
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

void RequestBodyWriter::UpdateFixed(const Request& request) {
  // The same stamp is the same tools (the caller's promise); without one,
  // the schemas are compared.
  bool same_tools = request.tools_stamp != 0 ? request.tools_stamp == tools_stamp_
                                             : tools_stamp_ == 0 && SameTools(tools_, request.tools);
  if (have_fixed_ && same_tools && system_ == request.system) return;
  system_ = request.system;
  tools_stamp_ = request.tools_stamp;
  // With a stamp the schemas are never compared again: not kept.
  if (tools_stamp_ == 0) tools_ = request.tools;
  else tools_.clear();
  Json members = api_ == ApiKind::kAnthropic     ? anthropic::FixedMembers(request)
                 : api_ == ApiKind::kOpenAiChat ? openai_chat::FixedMembers(request)
                                                : openai_responses::FixedMembers(request);
  fixed_.clear();
  for (auto it = members.begin(); it != members.end(); ++it)
    fixed_.emplace_back(it.key(), DumpJson(it.value()));
  lead_.clear();
  if (api_ == ApiKind::kOpenAiChat) lead_ = std::string(Inner(DumpJson(openai_chat::LeadItems(request))));
  have_fixed_ = true;
}

Json RequestBodyWriter::Items(const std::vector<Message>& conversation, size_t begin,
                              size_t end) const {
  switch (api_) {
    case ApiKind::kAnthropic: return anthropic::ConversationItems(conversation, begin, end);
    case ApiKind::kOpenAiChat: return openai_chat::ConversationItems(conversation, begin, end);
    case ApiKind::kOpenAiResponses: return openai_responses::ConversationItems(conversation, begin, end);
  }
  return Json::array();
}

const std::string& RequestBodyWriter::PrefixText(const std::vector<Message>& conversation,
                                                 size_t end) {
  size_t have = prefix_hashes_.size();
  // What is kept must be this conversation's start, and split where items
  // can be split (see ConversationItems).
  bool keep = have <= end && (have == end || conversation[have].role != Role::kToolResult);
  for (size_t i = 0; keep && i < have; ++i) keep = MessageHash(conversation[i]) == prefix_hashes_[i];
  if (!keep) {
    prefix_hashes_.clear();
    prefix_text_.clear();
    have = 0;
  }
  if (have < end) {
    std::string more = DumpJson(Items(conversation, have, end));
    if (more.size() > 2) {
      if (!prefix_text_.empty()) prefix_text_ += ',';
      prefix_text_ += Inner(more);
    }
    for (size_t i = have; i < end; ++i) prefix_hashes_.push_back(MessageHash(conversation[i]));
  }
  return prefix_text_;
}

std::string RequestBodyWriter::Write(const Request& request) {
  std::lock_guard lock(mu_);
  UpdateFixed(request);
  std::vector<Message> normalized;
  const std::vector<Message>& conversation = wire::Normalized(request.messages, &normalized);
  size_t n = conversation.size();
  // The newest message that is not a tool result starts the part built
  // afresh; everything before it is the kept prefix.
  size_t split = n;
  while (split > 0 && conversation[split - 1].role == Role::kToolResult) --split;
  split = split > 0 ? split - 1 : 0;
  Json tail = Items(conversation, split, n);
  if (api_ == ApiKind::kAnthropic) {
    // The cache breakpoint goes on the last item; when the tail has none
    // (an empty aborted answer) that item is in the prefix: build it all.
    if (tail.empty() && split > 0) {
      split = 0;
      tail = Items(conversation, 0, n);
    }
    anthropic::MarkCacheBreakpoint(&tail);
  }
  std::string tail_text = DumpJson(tail);
  std::string items;
  items.reserve(lead_.size() + (split > 0 ? prefix_text_.size() : 0) + tail_text.size() + 4);
  items += '[';
  auto add = [&](std::string_view piece) {
    if (piece.empty()) return;
    if (items.size() > 1) items += ',';
    items += piece;
  };
  add(lead_);
  if (split > 0) add(PrefixText(conversation, split));
  add(Inner(tail_text));
  items += ']';

  Json varying = api_ == ApiKind::kAnthropic
                     ? anthropic::BuildRequest(request, wire::Members::kNoConversation)
                 : api_ == ApiKind::kOpenAiChat
                     ? openai_chat::BuildRequest(request, chat_, wire::Members::kNoConversation)
                     : openai_responses::BuildRequest(request, wire::Members::kNoConversation);
  std::vector<std::pair<std::string_view, std::string_view>> raw;
  for (const auto& [key, text] : fixed_) raw.emplace_back(key, text);
  raw.emplace_back(api_ == ApiKind::kOpenAiResponses ? "input" : "messages", items);
  return DumpObjectWith(varying, raw);
}

}  // namespace sepp::llm
