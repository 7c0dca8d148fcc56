#include "ext/capabilities.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <functional>

#include "base/fd.h"
#include "base/file.h"
#include "base/paths.h"
#include "base/sha256.h"
#include "sandbox/capabilities.h"

namespace sepp::ext {
namespace fs = std::filesystem;
namespace {

struct Field {
  const char* name;
  std::vector<std::string> Capabilities::*member;
};
constexpr Field kFields[] = {{"fs_read", &Capabilities::fs_read},
                             {"fs_write", &Capabilities::fs_write},
                             {"net", &Capabilities::net},
                             {"env", &Capabilities::env},
                             {"exec", &Capabilities::exec}};

std::string KnownNames() { return "fs_read, fs_write, net, env, exec"; }

Status CheckEntry(const std::string& key, const std::string& v) {
  if (v.empty()) return Error::Make("capabilities." + key + ": empty entries are not allowed", "usage");
  if (v.find('\0') != std::string::npos)
    return Error::Make("capabilities." + key + ": an entry contains a NUL byte", "usage");
  if (key == "env") {
    for (char c : v)
      if (!(isalnum(static_cast<unsigned char>(c)) || c == '_'))
        return Error::Make("capabilities.env: \"" + v + "\" is not a variable name", "usage");
  }
  if (key == "net" && v.find_first_of("/: ") != std::string::npos)
    return Error::Make("capabilities.net: \"" + v + "\" is not a domain (give a host name "
                       "like api.example.com, no scheme or port)", "usage");
  return Ok();
}

std::string Line(const toml::source_region& r) { return std::to_string(r.begin.line); }

Result<Json> ReadStore() {
  std::error_code ec;
  if (!fs::exists(ExtensionTrustPath(), ec)) return Json::object();
  auto text = ReadBoundedFile(ExtensionTrustPath(), kMaxConfigFileBytes, "extension confirmations");
  if (!text.ok()) return text.error();
  auto j = ParseJson(*text);
  if (!j.ok() || !j->is_object())
    return Error::Make(ExtensionTrustPath().string() + " is not a JSON object; remove it to "
                       "confirm the extensions again", "io");
  return *j;
}

// Read-modify-write under an exclusive lock, so two sepp processes
// confirming at once do not lose one of the records.
Status UpdateStore(const std::function<void(Json&)>& change) {
  fs::path path = ExtensionTrustPath();
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  UniqueFd lock(::open((path.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid()) return Error::Make("cannot lock " + path.string() + ": " + ErrnoText(errno), "io");
  while (flock(lock.get(), LOCK_EX) != 0 && errno == EINTR) {
  }
  auto store = ReadStore();
  if (!store.ok()) return store.error();
  change(*store);
  return WriteFileAtomic(path, DumpJson(*store, 2) + "\n", 0600);
}

}  // namespace

Result<Capabilities> CapabilitiesFromToml(const toml::table& table, const std::string& source) {
  Capabilities caps;
  for (const auto& [k, node] : table) {
    std::string key(k.str());
    const Field* field = nullptr;
    for (const auto& f : kFields)
      if (key == f.name) field = &f;
    std::string at = source + ":" + Line(node.source()) + ": ";
    if (!field)
      return Error::Make(at + "capabilities." + key + ": unknown capability (known: " +
                         KnownNames() + ")", "usage");
    const toml::array* arr = node.as_array();
    if (!arr)
      return Error::Make(at + "capabilities." + key + ": expected a list of strings, like [\"a\"]",
                         "usage");
    for (const auto& item : *arr) {
      const auto* s = item.as_string();
      if (!s)
        return Error::Make(source + ":" + Line(item.source()) + ": capabilities." + key +
                           ": every entry must be a string", "usage");
      if (auto st = CheckEntry(key, s->get()); !st.ok())
        return Error::Make(source + ":" + Line(item.source()) + ": " + st.error().message, "usage");
      (caps.*(field->member)).push_back(s->get());
    }
  }
  return caps;
}

Json ToJson(const Capabilities& caps) {
  Json j = Json::object();
  for (const auto& f : kFields)
    if (!(caps.*(f.member)).empty()) j[f.name] = caps.*(f.member);
  return j;
}

Result<Capabilities> CapabilitiesFromJson(const Json& j) {
  if (!j.is_object()) return Error::Make("capabilities: expected an object", "usage");
  Capabilities caps;
  for (const auto& [key, value] : j.items()) {
    const Field* field = nullptr;
    for (const auto& f : kFields)
      if (key == f.name) field = &f;
    if (!field)
      return Error::Make("capabilities." + key + ": unknown capability (known: " + KnownNames() + ")",
                         "usage");
    if (!value.is_array())
      return Error::Make("capabilities." + key + ": expected a list of strings", "usage");
    for (const auto& item : value) {
      if (!item.is_string())
        return Error::Make("capabilities." + key + ": every entry must be a string", "usage");
      if (auto st = CheckEntry(key, item.get<std::string>()); !st.ok()) return st.error();
      (caps.*(field->member)).push_back(item.get<std::string>());
    }
  }
  return caps;
}

sandbox::Policy ToPolicy(const Capabilities& caps, const fs::path& workspace) {
  using sandbox::Capability;
  std::vector<sandbox::CapabilityGrant> grants;
  if (!caps.fs_read.empty()) grants.push_back({Capability::kFsRead, caps.fs_read});
  if (!caps.fs_write.empty()) grants.push_back({Capability::kFsWrite, caps.fs_write});
  if (!caps.net.empty()) grants.push_back({Capability::kNet, caps.net});
  if (!caps.env.empty()) grants.push_back({Capability::kEnv, caps.env});
  if (!caps.exec.empty()) grants.push_back({Capability::kExec, caps.exec});
  return sandbox::PolicyFromCapabilities(grants, workspace);
}

std::vector<std::string> Describe(const Capabilities& caps) {
  std::vector<std::string> out;
  for (const auto& f : kFields)
    for (const auto& v : caps.*(f.member)) out.push_back(std::string(f.name) + " " + v);
  if (out.empty()) out.push_back("nothing beyond running itself");
  return out;
}

std::string CapabilityKey(const std::string& name, const std::string& runs,
                          const Capabilities& caps) {
  Json j = {{"name", name}, {"runs", runs}, {"capabilities", ToJson(caps)}};
  return Sha256Hex(DumpJson(j));
}

fs::path ExtensionTrustPath() { return SeppHome() / "extension_trust.json"; }

ConfirmState ConfirmationOf(const std::string& name, const std::string& key) {
  auto store = ReadStore();
  if (!store.ok() || !store->contains(name)) return ConfirmState::kUnconfirmed;
  const Json& rec = (*store)[name];
  if (rec.is_object() && rec.value("key", "") == key) return ConfirmState::kConfirmed;
  // Only a refusal recorded, never a confirmation.
  if (rec.is_object() && !rec.contains("key")) return ConfirmState::kUnconfirmed;
  return ConfirmState::kChanged;
}

Status Confirm(const std::string& name, const std::string& key) {
  return UpdateStore([&](Json& store) { store[name] = {{"key", key}}; });
}

Status RecordRefusal(const std::string& name, const std::string& key, const std::string& why) {
  return UpdateStore([&](Json& store) {
    if (!store.contains(name) || !store[name].is_object()) store[name] = Json::object();
    store[name]["refused"] = {{"key", key}, {"why", why}};
  });
}

std::string RefusalOf(const std::string& name, const std::string& key) {
  auto store = ReadStore();
  if (!store.ok() || !store->contains(name) || !(*store)[name].is_object()) return "";
  const Json& rec = (*store)[name];
  if (!rec.contains("refused") || !rec["refused"].is_object()) return "";
  if (rec["refused"].value("key", "") != key) return "";
  return rec["refused"].value("why", "");
}

Status Unconfirm(const std::string& name) {
  return UpdateStore([&](Json& store) { store.erase(name); });
}

std::string UnconfirmedReason(const std::string& name, ConfirmState state) {
  std::string why = state == ConfirmState::kChanged
                        ? "its command or capabilities changed since they were confirmed"
                        : "its capabilities have not been confirmed";
  return "not started: " + why + "; review them with `sepp mcp list` and confirm with "
         "`sepp mcp trust " + name + "` (or answer the question in an interactive session)";
}

}  // namespace sepp::ext
