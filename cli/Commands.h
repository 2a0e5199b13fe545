// The subcommands of tomowb-cli. Each one registers its options on the app and runs after
// parsing; run() returns the exit code (CliSupport.h) and throws tomowb::Error on failure.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tomowb::cli {

struct GlobalOptions {
  bool json = false;         // machine-readable summary on stdout
  bool quiet = false;        // no progress, no text summary
  bool progress = false;     // progress bar even when stderr is not a terminal
  bool noRecord = false;     // no run record beside the outputs (RunRecords.h)
  std::string progressFile;  // --progress-file FILE (io/ProgressFile.h), empty: none
};

class Command {
 public:
  virtual ~Command() = default;
  virtual CLI::App* subcommand() const = 0;
  virtual int run(const GlobalOptions& global) = 0;
};

std::unique_ptr<Command> makePhantomCommand(CLI::App& app);
// `recon <id>`: one subcommand per algorithm of the catalogue (ReconCommands.cpp).
std::vector<std::unique_ptr<Command>> makeReconCommands(CLI::App& app);
std::unique_ptr<Command> makeMetricsCommand(CLI::App& app);
std::unique_ptr<Command> makeInfoCommand(CLI::App& app);
std::unique_ptr<Command> makeDemoCommand(CLI::App& app);
std::unique_ptr<Command> makeEtDemoCommand(CLI::App& app);
std::unique_ptr<Command> makeGeometryCommand(CLI::App& app);
// `convert PROJ --geometry FILE -o OUT.json`: any projections + geometry as raw + JSON.
std::unique_ptr<Command> makeConvertCommand(CLI::App& app);
std::unique_ptr<Command> makeVariantsCommand(CLI::App& app);
// `export dicom` and `import dicom` (a message saying why when the build has no DCMTK).
std::vector<std::unique_ptr<Command>> makeDicomCommands(CLI::App& app);
// `dicom echo|send|query`: a PACS or other DICOM node (DicomNetworkCommands.cpp).
std::vector<std::unique_ptr<Command>> makeDicomNetworkCommands(CLI::App& app);
// `compare`, `sweep` and `rerun` (docs/qa.md).
std::vector<std::unique_ptr<Command>> makeQaCommands(CLI::App& app);
// `pet simulate`, `pet histo` and `pet recon` (docs/pet.md).
std::vector<std::unique_ptr<Command>> makePetCommands(CLI::App& app);
// `cluster profile|submit|status|cancel|wait|list` (docs/scale.md, "Cluster"; recon/cluster).
std::vector<std::unique_ptr<Command>> makeClusterCommands(CLI::App& app);

// Prints `summary` as JSON on stdout when --json is given.
void printJson(const GlobalOptions& global, const nlohmann::json& summary);

}  // namespace tomowb::cli
