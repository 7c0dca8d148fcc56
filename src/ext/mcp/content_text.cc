#include "ext/mcp/content_text.h"

namespace sepp::ext::mcp {
namespace {

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string BlockText(const Json& block) {
  if (!block.is_object()) return "";
  std::string type = Str(block, "type");
  if (type == "text") return Str(block, "text");
  if (type == "image" || type == "audio")
    return "[" + type + " " + Str(block, "mimeType") + ", " +
           std::to_string(Str(block, "data").size() * 3 / 4) + " bytes]";
  if (type == "resource") {
    const Json r = block.value("resource", Json::object());
    if (!r.is_object()) return "[resource]";
    if (r.contains("text")) return Str(r, "text");
    std::string mime = Str(r, "mimeType");
    return "[resource " + Str(r, "uri") + (mime.empty() ? "" : " " + mime) + ", " +
           std::to_string(Str(r, "blob").size() * 3 / 4) + " bytes]";
  }
  if (type == "resource_link")
    return "[resource link " + Str(block, "uri") +
           (Str(block, "name").empty() ? "" : " (" + Str(block, "name") + ")") + "]";
  return "";
}

}  // namespace

std::string ContentText(const Json& content) {
  if (content.is_object()) return BlockText(content);
  std::string out;
  if (!content.is_array()) return out;
  for (const auto& block : content) {
    std::string piece = BlockText(block);
    if (piece.empty()) continue;
    if (!out.empty()) out += "\n";
    out += piece;
  }
  return out;
}

}  // namespace sepp::ext::mcp
