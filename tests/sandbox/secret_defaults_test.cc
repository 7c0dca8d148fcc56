// The default secret locations: docs/policy.md lists them, the code denies
// them, and this test holds the two together and then attacks each one. It
// runs sepp as it would run in the home folder (the workspace is $HOME), so
// every home entry and every workspace pattern lies inside the writable
// workspace; a sandboxed command cannot read any of them, while the file
// next to each one stays readable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sandbox/defaults.h"
#include "sandbox_fixture.h"

namespace sepp::sandbox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

// The entries of the fenced block after the <!-- default-secrets --> marker.
std::vector<std::string> DocumentedSecrets() {
  std::ifstream in(fs::path(SEPP_SOURCE_DIR) / "docs/policy.md");
  std::string line;
  bool marker = false, inside = false;
  std::vector<std::string> out;
  while (std::getline(in, line)) {
    if (line.find("<!-- default-secrets -->") != std::string::npos) marker = true;
    else if (marker && line.rfind("```", 0) == 0) {
      if (inside) break;
      inside = true;
    } else if (inside) {
      std::istringstream words(line);
      for (std::string w; words >> w;) out.push_back(w);
    }
  }
  return out;
}

// A concrete name for a pattern: "**/.env.*" -> ".env.production".
std::string Concrete(std::string glob) {
  for (size_t i; (i = glob.find('*')) != std::string::npos;) glob.replace(i, 1, "production");
  return glob;
}

TEST(SecretDefaults, DocsListExactlyWhatTheCodeDenies) {
  auto documented = DocumentedSecrets();
  ASSERT_FALSE(documented.empty()) << "docs/policy.md lost its <!-- default-secrets --> block";
  EXPECT_EQ(documented, DefaultSecretEntries());
}

class SecretDefaultsTest : public SandboxTest {};

TEST_F(SecretDefaultsTest, NoDocumentedSecretIsReadableFromTheSandbox) {
  ws_ = home_;  // sepp started in the home folder
  Policy policy = DefaultToolPolicy(home_);
  policy.limits.timeout_s = 60;
  std::string script, secrets_expected;
  int n = 0;
  std::vector<std::string> etc;
  for (const auto& e : DocumentedSecrets()) {
    std::string tag = "SECRET-" + std::to_string(++n);
    if (e.rfind("~/", 0) == 0) {
      fs::path p = home_ / e.substr(2);
      if (fs::exists(p)) fs::remove_all(p);
      Write(p, tag + "\n");
      Write(p.parent_path() / ("neighbour-" + std::to_string(n)), "NEIGHBOUR-" + std::to_string(n) + "\n");
      script += "cat '" + p.string() + "' '" + (p.parent_path() / ("neighbour-" + std::to_string(n))).string() + "';";
    } else if (e.rfind("**/", 0) == 0) {
      fs::path p = home_ / "project/backend" / Concrete(e.substr(3));
      Write(p, tag + "\n");
      script += "cat '" + p.string() + "';";
    } else if (e.rfind("!**/", 0) == 0) {
      fs::path p = home_ / "project/backend" / Concrete(e.substr(4));
      Write(p, "EXEMPT-" + std::to_string(n) + "\n");
      script += "cat '" + p.string() + "';";
    } else {
      ASSERT_EQ(e.rfind("/etc/", 0), 0u) << "an entry of an unknown kind: " << e;
      script += "[ -s '" + e + "' ] && echo 'NONEMPTY " + e + "';";
    }
  }
  Write(home_ / "project/backend/neighbour", "NEIGHBOUR-WS\n");
  script += "cat project/backend/neighbour; true";
  auto r = Sh(script, policy);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.output, Not(HasSubstr("SECRET-"))) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("NONEMPTY"))) << r.output;
  EXPECT_THAT(r.output, HasSubstr("NEIGHBOUR-WS"));
  n = 0;
  for (const auto& e : DocumentedSecrets()) {
    ++n;
    if (e.rfind("~/", 0) == 0) {
      EXPECT_THAT(r.output, HasSubstr("NEIGHBOUR-" + std::to_string(n))) << e;
    } else if (e.rfind("!**/", 0) == 0) {
      EXPECT_THAT(r.output, HasSubstr("EXEMPT-" + std::to_string(n))) << e;
    }
  }
}

}  // namespace
}  // namespace sepp::sandbox
