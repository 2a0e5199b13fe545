// `tomowb-cli compare`, `sweep` and `rerun`, and the run records every reconstruction writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

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

// --- Hostile-input review (issue #17): rerun ------------------------------------------------

nlohmann::json readJson(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

void writeJson(const fs::path& p, const nlohmann::json& j) {
  std::ofstream(p) << j.dump(2);
}

// A tilt series (tilts.mrc + tilts.tlt) and its SIRT reconstruction s.mhd with s.run.json.
void sirtRun(const test::TempDir& dir, const std::string& extra = "") {
  const std::string et = (dir / "et").string();
  ASSERT_EQ(cli("-q demo-et --width 32 --rows 2 --thickness 8 --step 20 --iterations 1 -o " + et)
                .exitCode,
            0);
  fs::copy_file(dir / "et" / "tilts.mrc", dir / "tilts.mrc");
  fs::copy_file(dir / "et" / "tilts.tlt", dir / "tilts.tlt");
  const CliResult r = cli("-q recon sirt -i " + (dir / "tilts.mrc").string() + " -o " +
                          (dir / "s.mhd").string() + " --thickness 8 --iterations 3 " + extra);
  ASSERT_EQ(r.exitCode, 0) << r.output;
}

// D3: rerun hashed only the .mhd header, the same for any data of that shape: "bit for bit
// identical" although the samples differed.
TEST(QaCli, RerunComparesTheSamplesNotOnlyTheHeader) {
  test::TempDir dir;
  ASSERT_EQ(
      cli("-q phantom --views 30 --cols 32 --rows 24 -o " + (dir / "p.json").string()).exitCode, 0);
  ASSERT_EQ(cli("-q recon fdk -i " + (dir / "p.json").string() + " --size 24 -o " +
                (dir / "r.mhd").string())
                .exitCode,
            0);
  auto record = readJson(dir / "r.run.json");
  bool data = false;
  for (const auto& o : record["outputs"]) data = data || o["role"] == "output data";
  EXPECT_TRUE(data) << "the record keeps the .raw's hash";
  record["command"].push_back("--filter");
  record["command"].push_back("hann");
  writeJson(dir / "r.run.json", record);
  const CliResult rerun = cli("rerun " + (dir / "r.run.json").string());
  EXPECT_EQ(rerun.output.find("bit for bit identical"), std::string::npos) << rerun.output;
  EXPECT_EQ(rerun.exitCode, 4) << rerun.output;
}

// D9: rerun ran whatever the record said and redirected only the recorded argument indices.
TEST(QaCli, RerunRepeatsOnlyReconstructionsAndRedirectsEveryOutputByName) {
  test::TempDir dir;
  sirtRun(dir, "--residuals " + (dir / "res.csv").string());
  const fs::path recordPath = dir / "s.run.json";
  const auto original = readJson(recordPath);
  const auto refused = [&](const nlohmann::json& record, const std::string& why) {
    writeJson(dir / "t.run.json", record);
    const CliResult r = cli("rerun " + (dir / "t.run.json").string());
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << r.output;
  };
  auto other = original;
  other["command"] = {
      "tomowb-cli", "export", "dicom", (dir / "s.mhd").string(), (dir / "victim").string(),
      "--force"};
  other["outputArguments"] = {4};
  refused(other, "not a reconstruction");
  auto forced = original;
  forced["command"].push_back("--force");
  refused(forced, "--force");
  auto escaping = original;
  for (auto& token : escaping["command"])
    if (token == (dir / "s.mhd").string()) token = "../s.mhd";
  refused(escaping, "..");
  auto joined = original;
  joined["command"].push_back("--telemetry=" + (dir / "t.csv").string());
  refused(joined, "joined");

  // outputArguments that point away from -o: the original output must stay untouched anyway.
  auto misdirected = original;
  misdirected["outputArguments"] = nlohmann::json::array();
  for (std::size_t i = 0; i + 1 < original["command"].size(); ++i)
    if (original["command"][i] == "--residuals") misdirected["outputArguments"].push_back(i + 1);
  writeJson(dir / "m.run.json", misdirected);
  const std::string before = test::readBytes(dir / "s.raw"), csv = test::readBytes(dir / "res.csv");
  const auto modified = fs::last_write_time(dir / "s.mhd");
  EXPECT_EQ(cli("-q rerun " + (dir / "m.run.json").string()).exitCode, 0);
  EXPECT_EQ(fs::last_write_time(dir / "s.mhd"), modified);
  EXPECT_EQ(test::readBytes(dir / "s.raw"), before);
  EXPECT_EQ(test::readBytes(dir / "res.csv"), csv);
}

// D10: records listed only -i, so a changed .tlt reran as "pass"; inputs: [] reran unquestioned.
TEST(QaCli, RecordsListEveryFileReadAndRerunRefusesIncompleteRecords) {
  test::TempDir dir;
  sirtRun(dir);
  const auto record = readJson(dir / "s.run.json");
  bool angles = false;
  for (const auto& f : record["inputs"])
    angles = angles || (f["role"] == "tilt angles" &&
                        fs::path(f["path"].get<std::string>()).filename() == "tilts.tlt");
  EXPECT_TRUE(angles) << record["inputs"].dump();

  auto empty = record;
  empty["inputs"] = nlohmann::json::array();
  writeJson(dir / "e.run.json", empty);
  CliResult r = cli("rerun " + (dir / "e.run.json").string());
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("no input files"), std::string::npos) << r.output;

  auto partial = record;
  partial["inputs"] = nlohmann::json::array();
  for (const auto& f : record["inputs"])
    if (f["role"] != "tilt angles") partial["inputs"].push_back(f);
  writeJson(dir / "p.run.json", partial);
  r = cli("rerun " + (dir / "p.run.json").string());
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("not listed in the record"), std::string::npos) << r.output;

  std::string tlt = test::readBytes(dir / "tilts.tlt");
  tlt[tlt.find('.') + 1] = tlt[tlt.find('.') + 1] == '9' ? '8' : '9';  // one angle, a little
  test::writeBytes(dir / "tilts.tlt", tlt);
  r = cli("rerun " + (dir / "s.run.json").string());
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("tilts.tlt changed since the run"), std::string::npos) << r.output;
}

// D18 and D13: the temporary folder is private (mkdtemp) and removed however the rerun ends;
// SIGTERM to rerun reaches its child and ends both.
TEST(QaCli, RerunCleansUpItsTemporaryFolderAndPassesSigtermOn) {
  test::TempDir dir;
  sirtRun(dir);
  fs::create_directories(dir / "tmp");
  const std::string env = "TMPDIR=" + (dir / "tmp").string();
  EXPECT_EQ(cli("-q rerun " + (dir / "s.run.json").string(), env).exitCode, 0);
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));
  auto failing = readJson(dir / "s.run.json");
  failing["command"].push_back("--relaxation");
  failing["command"].push_back("5");  // the child refuses it
  writeJson(dir / "f.run.json", failing);
  EXPECT_EQ(cli("-q rerun " + (dir / "f.run.json").string(), env).exitCode, 1);
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));

  // A long run: SIGTERM to rerun must end it and its child within seconds.
  auto longRun = readJson(dir / "s.run.json");
  for (std::size_t i = 0; i + 1 < longRun["command"].size(); ++i)
    if (longRun["command"][i] == "--iterations") longRun["command"][i + 1] = "1000000";
  longRun["command"].push_back("--stop-change");
  longRun["command"].push_back("0");
  writeJson(dir / "l.run.json", longRun);
  test::ProgramLaunch launch;
  launch.program = TOMOWB_CLI_PATH;
  launch.arguments = {"-q", "rerun", (dir / "l.run.json").string()};
  launch.environment = {"TMPDIR=" + (dir / "tmp").string()};
  launch.stdoutPath = "/dev/null";
  const pid_t pid = test::startProgram(launch);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(pid, SIGTERM);
  int status = 0;
  const auto sent = std::chrono::steady_clock::now();
  while (waitpid(pid, &status, WNOHANG) == 0 &&
         std::chrono::steady_clock::now() - sent < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (waitpid(pid, &status, WNOHANG) == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "rerun ignored SIGTERM";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << status;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));
}

}  // namespace
}  // namespace tomowb
