#include "front/acp/session_config.h"

namespace sepp::front::acp {

const char* ModeId(Mode m) {
  switch (m) {
    case Mode::kAsk: return "ask";
    case Mode::kAllow: return "allow";
    case Mode::kDeny: return "deny";
  }
  return "ask";
}

bool ParseMode(std::string_view id, Mode* out) {
  for (Mode m : {Mode::kAsk, Mode::kAllow, Mode::kDeny})
    if (id == ModeId(m)) {
      *out = m;
      return true;
    }
  return false;
}

Json ModesJson(Mode current) {
  return {{"currentModeId", ModeId(current)},
          {"availableModes",
           {{{"id", "ask"},
             {"name", "Ask"},
             {"description",
              "Ask before widening the sandbox for a command (a domain, a path outside the "
              "workspace)"}},
            {{"id", "allow"},
             {"name", "Allow widening"},
             {"description", "Allow each widening the model asks for, once, without asking"}},
            {{"id", "deny"},
             {"name", "Never widen"},
             {"description", "Refuse every widening without asking; commands stay confined"}}}}};
}

Json ConfigOptionsJson(const std::string& model, const std::vector<std::string>& models,
                       const std::string& thought_level,
                       const std::vector<std::string>& thought_levels) {
  Json model_options = Json::array();
  for (const auto& m : models) model_options.push_back({{"value", m}, {"name", m}});
  Json level_options = Json::array();
  for (const auto& l : thought_levels) level_options.push_back({{"value", l}, {"name", l}});
  return Json::array(
      {{{"id", "model"},
        {"name", "Model"},
        {"category", "model"},
        {"type", "select"},
        {"currentValue", model},
        {"options", model_options}},
       {{"id", "thought_level"},
        {"name", "Thinking"},
        {"description", "How much the model may think before it answers (a token budget)"},
        {"category", "thought_level"},
        {"type", "select"},
        {"currentValue", thought_level},
        {"options", level_options}}});
}

Json AvailableCommandsJson(const std::vector<ext::CommandInfo>& commands) {
  Json list = Json::array({{{"name", "compact"},
                            {"description",
                             "Summarise the older part of the conversation to free the context"},
                            {"input", {{"hint", "what the summary should focus on (optional)"}}}}});
  for (const ext::CommandInfo& c : commands) {
    if (c.name == "compact") continue;  // the front end's own comes first
    Json cmd = {{"name", c.name}, {"description", c.description}};
    cmd["input"] = {{"hint", c.argument_hint.empty() ? std::string("arguments (optional)")
                                                     : c.argument_hint}};
    list.push_back(std::move(cmd));
  }
  return list;
}

}  // namespace sepp::front::acp
