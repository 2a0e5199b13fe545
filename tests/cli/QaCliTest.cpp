// `tomowb-cli compare`, `sweep` and `rerun`, and the run records every reconstruction writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/TestSupport.h"

namespace tomowb {
namespace {

namespace fs = std::filesystem;

struct CliResult {
  int exitCode = -1;
  std::string output;
};

CliResult cli(const std::string& arguments, const std::string& environment = "") {
  CliResult r;
  FILE* pipe = ::popen((environment + " " TOMOWB_CLI_PATH " " + arguments + " 2>&1").c_str(), "r");
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = ::pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

nlohmann::json jsonOf(const std::string& output) {
  return nlohmann::json::parse(output.substr(output.find('{')));
}

TEST(QaCli, ReconstructionsWriteRecordsThatRerunBitForBit) {
  test::TempDir dir;
  const std::string demo = (dir / "demo").string();
  ASSERT_EQ(cli("-q demo --size 32 --views 40 -o " + demo).exitCode, 0);
  ASSERT_TRUE(fs::exists(dir / "demo" / "run.json"));
  std::ifstream in(dir / "demo" / "run.json");
  const auto record = nlohmann::json::parse(in);
  EXPECT_EQ(record["format"], "tomowb-run-record");
  EXPECT_EQ(record["algorithm"], "FDK");
  EXPECT_EQ(record["variant"], "fdk.bp.cpu");
  EXPECT_FALSE(record["geometry"].is_null());
  EXPECT_EQ(record["outputs"][0]["role"], "output");

  const CliResult rerun = cli("--json rerun " + demo + "/run.json");
  ASSERT_EQ(rerun.exitCode, 0) << rerun.output;
  const auto summary = jsonOf(rerun.output);
  EXPECT_TRUE(summary["matches"].get<bool>());
  EXPECT_EQ(summary["outputs"][0]["result"], "bit-identical");
  // The rerun wrote into a temporary folder, not over the original.
  EXPECT_TRUE(fs::exists(dir / "demo" / "recon.mhd"));

  // A changed input is refused.
  ASSERT_EQ(
      cli("-q phantom --views 30 --cols 32 --rows 24 -o " + (dir / "p.json").string()).exitCode, 0);
  ASSERT_EQ(cli("-q recon fdk -i " + (dir / "p.json").string() + " --size 24 -o " +
                (dir / "r.mhd").string())
                .exitCode,
            0);
  ASSERT_TRUE(fs::exists(dir / "r.run.json"));
  EXPECT_EQ(cli("-q rerun " + (dir / "r.run.json").string()).exitCode, 0);
  { std::ofstream(dir / "p.raw", std::ios::app) << "x"; }
  const CliResult changed = cli("rerun " + (dir / "r.run.json").string());
  EXPECT_NE(changed.exitCode, 0);
  EXPECT_NE(changed.output.find("changed since the run"), std::string::npos) << changed.output;
}

TEST(QaCli, CompareJudgesAgainstTheVariantClassAndWritesAReport) {
  test::TempDir dir;
  const std::string demo = (dir / "demo").string();
  ASSERT_EQ(cli("-q demo --size 32 --views 40 -o " + demo).exitCode, 0);
  // The demo folder's run.json is the record of recon.mhd: a run against itself is comparable.
  const CliResult same =
      cli("--json compare " + demo + "/recon.mhd " + demo + "/recon.mhd --class exact");
  EXPECT_EQ(same.exitCode, 0) << same.output;
  EXPECT_TRUE(jsonOf(same.output)["comparison"]["passed"].get<bool>());
  // The phantom has no run record: no pass / fail, whatever --class says, and exit code 0.
  const CliResult truth =
      cli("compare " + demo + "/recon.mhd " + demo + "/truth.mhd --class exact");
  EXPECT_EQ(truth.exitCode, 0) << truth.output;
  EXPECT_NE(truth.output.find("informative (cannot tell whether the runs are comparable: no run "
                              "record for B"),
            std::string::npos)
      << truth.output;
  EXPECT_EQ(truth.output.find("fail"), std::string::npos) << truth.output;
  // --comparable: the user says they differ only in kernel or device; then it is judged.
  const CliResult judged =
      cli("compare " + demo + "/recon.mhd " + demo +
          "/truth.mhd --class exact --comparable --report " + (dir / "report").string());
  EXPECT_EQ(judged.exitCode, 4) << judged.output;
  EXPECT_NE(judged.output.find("fail (exact)"), std::string::npos) << judged.output;
  EXPECT_TRUE(fs::exists(dir / "report" / "report.md"));
  const CliResult badClass =
      cli("compare " + demo + "/recon.mhd " + demo + "/truth.mhd --class approximate");
  EXPECT_EQ(badClass.exitCode, 1);
  EXPECT_NE(badClass.output.find("--class"), std::string::npos);
}

// Pass / fail only for the same reconstruction on another kernel variant: a different filter is
// another reconstruction, and gets "informative" and exit code 0 even where the volumes differ.
TEST(QaCli, CompareGivesAVerdictOnlyForRunsThatDifferInTheKernel) {
  test::TempDir dir;
  const std::string p = (dir / "p.json").string();
  ASSERT_EQ(cli("-q phantom --views 30 --cols 32 --rows 24 -o " + p).exitCode, 0);
  const auto recon = [&](const std::string& out, const std::string& options) {
    return cli("-q recon fdk -i " + p + " --size 24 -o " + (dir / out).string() + " " + options)
        .exitCode;
  };
  ASSERT_EQ(recon("cpu.mhd", "--variant fdk.bp.cpu"), 0);
  ASSERT_EQ(recon("f64.mhd", "--variant fdk.bp.cpu-f64"), 0);
  ASSERT_EQ(recon("hann.mhd", "--variant fdk.bp.cpu-f64 --filter hann"), 0);
  const CliResult variants =
      cli("--json compare " + (dir / "cpu.mhd").string() + " " + (dir / "f64.mhd").string());
  EXPECT_EQ(variants.exitCode, 0) << variants.output;
  const auto v = jsonOf(variants.output)["comparison"];
  EXPECT_TRUE(v["passed"].get<bool>()) << v.dump();
  EXPECT_EQ(v["accuracyClass"], "exact");
  const CliResult filters = cli("compare " + (dir / "cpu.mhd").string() + " " +
                                (dir / "hann.mhd").string() + " --class exact");
  EXPECT_EQ(filters.exitCode, 0) << filters.output;
  EXPECT_NE(filters.output.find("informative (different parameters: filter.window"),
            std::string::npos)
      << filters.output;
  // --comparable does not override records that show a difference.
  EXPECT_EQ(cli("-q compare " + (dir / "cpu.mhd").string() + " " + (dir / "hann.mhd").string() +
                " --class exact --comparable")
                .exitCode,
            0);
}

TEST(QaCli, SweepFlagsTheBrokenTestVariant) {
  test::TempDir dir;
  const CliResult sweep = cli("--json sweep --size 32 --views 40 --repeats 2 --no-ssim --report " +
                                  (dir / "sweep").string(),
                              "TOMOWB_TEST_VARIANTS=1");
  EXPECT_EQ(sweep.exitCode, 4) << sweep.output;  // a variant failed its class
  const auto summary = jsonOf(sweep.output);
  bool sawBroken = false, sawCpu = false, sawReference = false;
  for (const auto& row : summary["rows"]) {
    if (row["label"] == "fdk.bp.cpu-f64") {
      sawReference = true;  // its own reference: no pass / fail
      EXPECT_EQ(row["verdict"], "reference");
      EXPECT_FALSE(row["comparison"].contains("passed"));
    }
    if (row["label"] == "fdk.bp.test-gpu-stand-in" && !row["ran"].get<bool>()) {
      EXPECT_EQ(row["skipped"].get<std::string>().rfind("no GPU", 0), 0u) << row.dump();
    }
    if (row["label"] == "fdk.bp.test-half-pixel") {
      sawBroken = true;
      EXPECT_FALSE(row["comparison"]["passed"].get<bool>());
    }
    if (row["label"] == "fdk.bp.cpu") {
      sawCpu = true;
      EXPECT_TRUE(row["comparison"]["passed"].get<bool>());
      EXPECT_TRUE(row["determinism"]["bitIdentical"].get<bool>());
    }
  }
  EXPECT_TRUE(sawBroken && sawCpu && sawReference);
  EXPECT_TRUE(fs::exists(dir / "sweep" / "report.md"));
  EXPECT_TRUE(fs::exists(dir / "sweep" / "pareto.svg"));
  // Without the environment variable the test variant does not exist.
  const CliResult normal = cli("--json sweep --size 32 --views 40 --repeats 2 --no-ssim");
  EXPECT_EQ(normal.exitCode, 0) << normal.output;
  EXPECT_EQ(normal.output.find("test-half-pixel"), std::string::npos);
}

}  // namespace
}  // namespace tomowb
