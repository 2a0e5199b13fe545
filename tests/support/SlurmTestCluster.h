// A real single-node SLURM for the tests that submit jobs (tests/slurm, the cluster dialog's GUI
// test): tests/support/slurm-single-node.sh started in TOMOWB_TEST_SLURM_DIR (ctest's fixture
// SlurmCluster.Start did it already) or in a folder of this process's own, stopped and removed at
// the end then. SLURM_CONF and XDG_CONFIG_HOME (profiles and job records) point into its folder.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "recon/cluster/ExternalCommand.h"

namespace tomowb::test {

class SlurmTestCluster {
 public:
  explicit SlurmTestCluster(std::string script) : script_(std::move(script)) {
    using namespace tomowb::cluster;
    installed_ = runExternalCommand({"bash", script_, "check"}).ok();
    if (!installed_) return;
    const char* shared = std::getenv("TOMOWB_TEST_SLURM_DIR");  // NOLINT(concurrency-mt-unsafe)
    own_ = shared == nullptr || shared[0] == '\0';
    dir_ = own_ ? std::filesystem::temp_directory_path() /
                      ("tomowb-slurm-" + std::to_string(::getpid()))
                : std::filesystem::path(shared);
    CommandOptions options;
    options.timeout = std::chrono::seconds(60);
    const CommandResult started = runExternalCommand({"bash", script_, "start", dir_}, options);
    error_ = started.ok() ? "" : started.describe();
    ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", (dir_ / "config").c_str(), 1);
  }
  ~SlurmTestCluster() {
    if (!installed_ || !own_) return;
    tomowb::cluster::runExternalCommand({"bash", script_, "stop", dir_});
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  SlurmTestCluster(const SlurmTestCluster&) = delete;
  SlurmTestCluster& operator=(const SlurmTestCluster&) = delete;

  bool installed() const { return installed_; }
  const std::string& startError() const { return error_; }  // empty: it runs
  static const char* notInstalled() {
    return "SLURM is not installed (slurmctld, slurmd, slurm-client, munge: scripts/setup.sh "
           "installs them)";
  }

 private:
  std::string script_;
  bool installed_ = false, own_ = false;
  std::filesystem::path dir_;
  std::string error_;
};

}  // namespace tomowb::test
