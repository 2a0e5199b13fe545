// The benchmark programs themselves, run on tiny CPU cases: they refuse fewer than 5 timed runs,
// every timed row gives min / median / max and both errors, and peer figures appear only in
// tables headed "cited" (issue #17 point 6).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Result {
  int exitCode = -1;
  std::string output;
};

Result run(const std::string& program, const std::string& arguments) {
  Result r;
  FILE* pipe = ::popen((program + " " + arguments + " 2>&1").c_str(), "r");
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = ::pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::vector<std::string> linesStartingWith(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  return lines;
}

const std::regex kMinMedianMax(R"(\| [0-9.]+ / [0-9.]+ / [0-9.]+ \|)");
const std::regex kTwoErrors(R"(\| [0-9.]+e[-+][0-9]+ \| [0-9.]+e[-+][0-9]+ \|)");

TEST(BenchPrograms, CpuBackprojectionRefusesFewerThanFiveRuns) {
  const Result r = run(TOMOWB_BENCH_FDK_BP_PATH, "--size 16 --views 8 --threads 1 --repeats 4");
  EXPECT_NE(r.exitCode, 0);
  EXPECT_NE(r.output.find("--repeats"), std::string::npos) << r.output;
}

TEST(BenchPrograms, CpuBackprojectionRowsGiveSpreadAndBothErrors) {
  const Result r =
      run(TOMOWB_BENCH_FDK_BP_PATH, "--size 16 --views 12 --threads 1 --repeats 5 --samples 32");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("seconds min / median / max"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rel. L2 err, random zero-mean | rel. L2 err, Shepp-Logan (positive)"),
            std::string::npos)
      << r.output;
  const std::vector<std::string> rows = linesStartingWith(r.output, "| fdk.bp.cpu |");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  EXPECT_TRUE(std::regex_search(rows[0], kMinMedianMax)) << rows[0];
  EXPECT_TRUE(std::regex_search(rows[0], kTwoErrors)) << rows[0];
  EXPECT_NE(rows[0].find("| 5 |"), std::string::npos) << rows[0];  // the runs column
}

#ifdef TOMOWB_BENCH_FDK_GPU_PATH
// Without a GPU only the CPU rows run; with one, the end-to-end part runs the CPU variant too.
// Either way: spread and both errors in every kernel row, a headline naming the texel format,
// and ASTRA and TIGRE only inside the table headed "cited".
TEST(BenchPrograms, GpuFdkBenchmarkKeepsPeersInACitedTable) {
  EXPECT_NE(run(TOMOWB_BENCH_FDK_GPU_PATH, "--repeats 3").exitCode, 0);
  const Result r = run(TOMOWB_BENCH_FDK_GPU_PATH,
                       "--variants cpu --sizes 16 --views 8 --samples 32 --phantom-sizes 0 "
                       "--e2e-variants cpu --no-cross-check --no-multi-gpu");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const std::vector<std::string> rows = linesStartingWith(r.output, "| fdk.bp.cpu |");
  ASSERT_GE(rows.size(), 1u) << r.output;
  EXPECT_TRUE(std::regex_search(rows[0], kMinMedianMax)) << rows[0];
  EXPECT_TRUE(std::regex_search(rows[0], kTwoErrors)) << rows[0];
  EXPECT_NE(r.output.find("**fdk.bp.cpu, CPU, float32**"), std::string::npos) << r.output;
  const std::size_t cited = r.output.find("#### Cited, not measured by this run");
  ASSERT_NE(cited, std::string::npos) << r.output;
  const std::size_t citedEnd = r.output.find("no ratio to them is printed", cited);
  ASSERT_NE(citedEnd, std::string::npos);
  for (const char* peer : {"ASTRA", "TIGRE"}) {
    for (std::size_t at = r.output.find(peer); at != std::string::npos;
         at = r.output.find(peer, at + 1))
      EXPECT_TRUE(at > cited && at < citedEnd) << peer << " outside the cited table at " << at;
  }
}
#endif

}  // namespace
