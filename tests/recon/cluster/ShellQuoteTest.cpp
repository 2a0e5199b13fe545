#include <gtest/gtest.h>

#include "recon/cluster/ExternalCommand.h"
#include "recon/cluster/ShellQuote.h"

namespace tomowb::cluster {
namespace {

TEST(ShellQuote, LeavesSafeWordsAndQuotesTheRest) {
  EXPECT_EQ(shellQuote("recon"), "recon");
  EXPECT_EQ(shellQuote("/data/scan.json"), "/data/scan.json");
  EXPECT_EQ(shellQuote(""), "''");
  EXPECT_EQ(shellQuote("a b"), "'a b'");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
}

TEST(ShellQuote, AShellGetsBackExactlyTheWordsGivenWhateverTheyHold) {
  const std::vector<std::string> words = {
      "plain", "two words",   "it's",      "$(touch /tmp/pwned)", "`id`", "a;b|c&d", "*",
      "~/x",   "back\\slash", "new\nline", "\"double\"",          "",     "-o",      "--out=x y"};
  // printf prints each argument between markers; sh parses the quoted line.
  std::vector<std::string> line = {"printf", "<%s>"};
  line.insert(line.end(), words.begin(), words.end());
  const CommandResult r = runExternalCommand({"sh", "-c", shellCommand(line)});
  ASSERT_TRUE(r.ok()) << r.describe();
  std::string expected;
  for (const std::string& w : words) expected += "<" + w + ">";
  EXPECT_EQ(r.out, expected);
}

}  // namespace
}  // namespace tomowb::cluster
