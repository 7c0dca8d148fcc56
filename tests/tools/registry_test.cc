// RunTool: the one place a tool's exception becomes an error result.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tools/tool.h"

namespace sepp::tools {
namespace {

class ThrowingTool : public Tool {
 public:
  std::string name() const override { return "boom"; }
  std::string description() const override { return "throws"; }
  Json parameters() const override { return {{"type", "object"}}; }
  std::string Summary(const Json&) const override { return "boom"; }
  ToolResult Run(const Json&, ToolContext&) override { throw std::runtime_error("internal fault"); }
};

TEST(RunTool, AnExceptionBecomesAnErrorResult) {
  ThrowingTool tool;
  ToolContext ctx;
  ToolResult r = RunTool(tool, Json::object(), ctx);
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "boom failed: internal fault");
}

}  // namespace
}  // namespace sepp::tools
