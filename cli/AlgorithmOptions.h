// The option adapters of `recon <id>`: the algorithm's own parameters as options, made from its
// catalogue descriptor (ParameterOptions: one option per catalog::ParameterSpec), and the options
// of the projector roles it accepts (VariantOptions: --device, --variant, --fp/--bp/--matched for
// projector pairs, --projector MODEL for the matched pair of a projector model, --gpus,
// --gpu-mem-limit, --tunable). Both write into the parameter JSON that the descriptor validates.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "recon/catalog/AlgorithmCatalog.h"

namespace tomowb::cli {

class ParameterOptions {
 public:
  // Adds one option per parameter of `descriptor` to an option group of `app`.
  void addTo(CLI::App& app, const catalog::AlgorithmDescriptor& descriptor);
  // The options given (and the defaults of those not given) into `parameters`. Throws
  // ParameterError naming the option when a value breaks its rule.
  void apply(nlohmann::json& parameters) const;

 private:
  struct Value {
    catalog::ParameterSpec spec;
    std::int64_t integer = 0;
    double real = 0;
    bool flag = false;
    bool alias = false;
    std::string text;
    CLI::Option* option = nullptr;
  };
  std::vector<std::unique_ptr<Value>> values_;
};

class VariantOptions {
 public:
  void addTo(CLI::App& app, const catalog::AlgorithmDescriptor& descriptor);
  // The variants (defaults by --device and --matched) and the GPU options into `parameters`.
  // Throws ParameterError naming the option for an unknown variant, a variant of the wrong
  // device or role, a tunable the variants lack, --device gpu without a GPU.
  void apply(nlohmann::json& parameters) const;
  // Whether a variant the parameters name for one of the descriptor's projector roles runs on
  // a GPU.
  static bool onGpu(const catalog::AlgorithmDescriptor& descriptor,
                    const nlohmann::json& parameters);

  // The pair --projector MODEL names: a forward projector of the model and the backprojector
  // registered as its exact transpose, GPU variants first when `gpu` (else the CPU pair, with a
  // note saying so); a model without a matched pair (voxel: a backprojector only) gets its
  // projectors and the device's default for the missing role, unmatched, with a note.
  // ParameterError naming --projector and listing the models for an unknown one.
  struct ModelPair {
    std::string forward, back;
    bool onGpu = false;
    std::string note;  // empty: the pair asked for
  };
  static ModelPair pairOfModel(const VariantRegistry& registry, const std::string& model, bool gpu);

 private:
  bool fdk_ = false;  // the FDK backprojector role: FdkOptions without the filter
  FdkOptions fdkOptions_;
  std::string device_, fp_, bp_, projectorModel_;
  std::vector<std::string> variants_;
  bool matched_ = false;
  std::string gpuMemoryLimit_;
  std::vector<int> gpus_;
  std::vector<std::string> tunables_;
};

}  // namespace tomowb::cli
