#include "ext/lua/lua_tool.h"

#include "ext/lua/lua_hook_file.h"

namespace sepp::ext {

namespace {

class LuaTool : public tools::Tool {
 public:
  LuaTool(std::shared_ptr<LuaHookFile> file, std::string name, std::string description,
          Json parameters, int ref)
      : file_(std::move(file)),
        name_(std::move(name)),
        description_(std::move(description)),
        parameters_(std::move(parameters)),
        ref_(ref) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  Json parameters() const override { return parameters_; }
  std::string Summary(const Json& args) const override {
    std::string a = DumpJson(args);
    if (a.size() > 60) a = a.substr(0, 57) + "...";
    return name_ + " " + a;
  }
  tools::ToolResult Run(const Json& args, tools::ToolContext&) override {
    return file_->RunTool(ref_, name_, args);
  }

 private:
  std::shared_ptr<LuaHookFile> file_;
  std::string name_, description_;
  Json parameters_;
  int ref_;
};

}  // namespace

std::unique_ptr<tools::Tool> MakeLuaTool(std::shared_ptr<LuaHookFile> file, std::string name,
                                         std::string description, Json parameters, int ref) {
  return std::make_unique<LuaTool>(std::move(file), std::move(name), std::move(description),
                                   std::move(parameters), ref);
}

}  // namespace sepp::ext
