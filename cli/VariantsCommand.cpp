// `tomowb-cli variants`: the kernel variants this build registered, for --variant.
#include <cstdio>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/device/GpuDevices.h"
#include "recon/fdk/BackprojectorCpu.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cli {
namespace {

class VariantsCommand : public Command {
 public:
  explicit VariantsCommand(CLI::App& app) {
    sub_ = app.add_subcommand("variants", "list the kernel variants this build has");
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    nlohmann::json list = nlohmann::json::array();
    for (const KernelVariant& v : VariantRegistry::builtins().all()) {
      if (!global.json)
        std::printf("%-18s %s%s\n", v.name.c_str(), v.description.c_str(),
                    v.needsGpu ? " [GPU]" : "");
      list.push_back({{"name", v.name}, {"description", v.description}, {"needsGpu", v.needsGpu}});
    }
    if (!global.json)
      std::printf("(the CPU backprojector uses %s on this machine)\n",
                  fdk::cpuBackprojectorUsesAvx2() ? "AVX2 + FMA" : "scalar code");
    nlohmann::json gpus = nlohmann::json::array();
    for (const cuda::GpuDevice& d : cuda::listGpuDevices())
      gpus.push_back({{"index", d.index},
                      {"name", d.name},
                      {"computeCapability",
                       std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)},
                      {"totalMemoryBytes", d.totalMemoryBytes},
                      {"freeMemoryBytes", d.freeMemoryBytes}});
    if (!global.json) std::printf("GPUs: %s\n", cuda::gpuStatus().c_str());
    printJson(global, {{"command", "variants"}, {"variants", list}, {"gpus", gpus}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> makeVariantsCommand(CLI::App& app) {
  return std::make_unique<VariantsCommand>(app);
}

}  // namespace tomowb::cli
