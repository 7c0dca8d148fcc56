#include "llm/cassette_scrub.h"

#include <algorithm>
#include <functional>

#include "base/secrets.h"
#include "base/strings.h"

namespace sepp::llm {
namespace {

Json MapStrings(const Json& j, const std::function<std::string(std::string_view)>& f) {
  if (j.is_string()) return f(j.get_ref<const std::string&>());
  if (j.is_array()) {
    Json out = Json::array();
    for (const auto& v : j) out.push_back(MapStrings(v, f));
    return out;
  }
  if (j.is_object()) {
    Json out = Json::object();
    for (const auto& [k, v] : j.items()) out[f(k)] = MapStrings(v, f);
    return out;
  }
  return j;
}

void MapBlock(ContentBlock* b, const std::function<std::string(std::string_view)>& f) {
  for (std::string* s : {&b->text, &b->signature, &b->id, &b->name, &b->arguments_error, &b->raw_arguments}) {
    *s = f(*s);
  }
  b->arguments = MapStrings(b->arguments, f);
}

void MapResponse(Exchange* x, const std::function<std::string(std::string_view)>& f) {
  for (auto& e : x->events) {
    e.text = f(e.text);
    MapBlock(&e.call, f);
  }
  if (x->message) {
    Message& m = *x->message;
    for (auto& b : m.content) MapBlock(&b, f);
    for (std::string* s : {&m.tool_call_id, &m.tool_name, &m.model, &m.error}) *s = f(*s);
  }
  x->error.message = f(x->error.message);
}

}  // namespace

CassetteScrub::CassetteScrub(const std::string& cwd, const std::string& date) {
  for (const auto& [value, placeholder] : {std::pair{cwd, kCwdPlaceholder}, std::pair{date, kDatePlaceholder}}) {
    if (value.size() >= 2 && value != "/") values_.emplace_back(value, placeholder);
  }
  std::sort(values_.begin(), values_.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string CassetteScrub::Hide(std::string_view text) const {
  std::string out = Redact(text);
  for (const auto& [value, placeholder] : values_) out = ReplaceAll(std::move(out), value, placeholder);
  return out;
}

std::string CassetteScrub::Reveal(std::string_view text) const {
  std::string out(text);
  for (const auto& [value, placeholder] : values_) out = ReplaceAll(std::move(out), placeholder, value);
  return out;
}

Json CassetteScrub::Hide(const Json& j) const {
  return MapStrings(j, [this](std::string_view s) { return Hide(s); });
}

void CassetteScrub::HideResponse(Exchange* x) const {
  MapResponse(x, [this](std::string_view s) { return Hide(s); });
}

void CassetteScrub::RevealResponse(Exchange* x) const {
  MapResponse(x, [this](std::string_view s) { return Reveal(s); });
}

}  // namespace sepp::llm
