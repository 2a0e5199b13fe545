#include "recon/iterative/IterativeJson.h"

#include <map>
#include <string>
#include <vector>

namespace tomowb::iterative {

nlohmann::json toJson(const IterativeReport& r) {
  nlohmann::json iterations = nlohmann::json::array();
  for (const IterationRecord& i : r.iterations) {
    nlohmann::json record = {{"iteration", i.iteration},
                             {"residualNorm", i.residualNorm},
                             {"weightedResidualNorm", i.weightedResidualNorm},
                             {"relativeResidual", i.relativeResidual},
                             {"seconds", i.seconds}};
    if (!i.objectiveName.empty()) {
      record["objective"] = i.objective;
      record["objectiveName"] = i.objectiveName;
    }
    if (!i.metrics.empty()) {
      nlohmann::json metrics = nlohmann::json::object();
      for (const auto& [name, value] : i.metrics) metrics[name] = value;
      record["metrics"] = metrics;
    }
    iterations.push_back(std::move(record));
  }
  const double computeSeconds = r.forwardSeconds + r.backprojectSeconds;
  return {
      {"method", r.method},
      {"forwardVariant", r.forwardVariant},
      {"backVariant", r.backVariant},
      {"device", r.device},
      {"stopReason", r.stopReason},
      {"setupSeconds", r.setupSeconds},
      {"forwardSeconds", r.forwardSeconds},
      {"backprojectSeconds", r.backprojectSeconds},
      {"voxelUpdates", r.voxelUpdates},
      {"projectorGups", computeSeconds > 0 ? r.voxelUpdates / computeSeconds / 1e9 : 0.0},
      {"totalSeconds", r.totalSeconds},
      {"warnings", r.warnings},
      {"iterations", iterations},
  };
}

}  // namespace tomowb::iterative

namespace tomowb::fdk {

nlohmann::json toJson(const GpuRunOptions& gpu) {
  return {{"memoryLimitBytes", gpu.memoryLimitBytes},
          {"devices", gpu.devices},
          {"tunables", gpu.tunables}};
}

GpuRunOptions gpuRunOptionsFromJson(const nlohmann::json& json) {
  GpuRunOptions gpu;
  gpu.memoryLimitBytes = json.value("memoryLimitBytes", std::uint64_t{0});
  if (json.contains("devices")) gpu.devices = json["devices"].get<std::vector<int>>();
  if (json.contains("tunables"))
    gpu.tunables = json["tunables"].get<std::map<std::string, std::string>>();
  return gpu;
}

}  // namespace tomowb::fdk
