// The user's bash as the model reads it: pi's text for every outcome, and
// entries from a session file of any shape read without a throw.
#include "runtime/user_bash.h"

#include <gtest/gtest.h>

namespace sepp::runtime {
namespace {

TEST(UserBash, ReadsAsPiWritesIt) {
  UserBash r{"ls", "a\nb\n", 0, false, false, "", false};
  EXPECT_EQ(UserBashMessage(r).Text(), "Ran `ls`\n```\na\nb\n```");
  EXPECT_EQ(UserBashMessage(r).role, llm::Role::kUser);
  r.output.clear();
  r.exit_code = 2;
  EXPECT_EQ(UserBashMessage(r).Text(), "Ran `ls`\n(no output)\n\nCommand exited with code 2");
  r.cancelled = true;
  EXPECT_EQ(UserBashMessage(r).Text(), "Ran `ls`\n(no output)\n\n(command cancelled)");
  r = {"cat big", "x\n", 0, false, true, "/tmp/o.log", false};
  EXPECT_EQ(UserBashMessage(r).Text(),
            "Ran `cat big`\n```\nx\n```\n\n[Output truncated. Full output: /tmp/o.log]");
}

TEST(UserBash, EntriesRoundTripAndHostileOnesReadAsDefaults) {
  UserBash r{"echo hi", "hi\n", 3, false, true, "/tmp/f", true};
  UserBash back = UserBashFromEntry(UserBashEntry(r));
  EXPECT_EQ(back.command, r.command);
  EXPECT_EQ(back.output, r.output);
  EXPECT_EQ(back.exit_code, 3);
  EXPECT_TRUE(back.truncated);
  EXPECT_EQ(back.full_output_path, "/tmp/f");
  EXPECT_TRUE(back.exclude_from_context);
  for (const Json& bad : {Json(), Json(5), Json::array(), Json{{"command", 1}, {"exit_code", "x"},
                                                                {"cancelled", "yes"}, {"output", {1}}}}) {
    UserBash d = UserBashFromEntry(bad);
    EXPECT_EQ(d.command, "") << bad.dump();
    EXPECT_EQ(d.exit_code, -1) << bad.dump();
    EXPECT_FALSE(d.cancelled) << bad.dump();
    EXPECT_FALSE(d.exclude_from_context) << bad.dump();
  }
}

}  // namespace
}  // namespace sepp::runtime
