// tomowb-cli: every workbench algorithm headless (DESIGN.md, "command line"). Exit codes:
// 0 success, 1 error (bad file or parameter, I/O), 2 usage, 3 out of memory, 130 interrupted.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "RunRecords.h"
#include "recon/core/Error.h"

int main(int argc, char** argv) {
  using namespace tomowb::cli;
  CLI::App app{
      "Tomo Workbench command line: phantoms, FDK, SIRT and ET reconstruction, metrics, file "
      "info.\n"
      "Exit codes: 0 ok, 1 error, 2 usage, 3 out of memory, 4 a check failed, 130 interrupted.",
      "tomowb-cli"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tomowb-cli ") + TOMOWB_VERSION);
  GlobalOptions global;
  app.add_flag("--json", global.json, "print a machine-readable JSON summary on stdout");
  app.add_flag("-q,--quiet", global.quiet, "no progress bar and no text summary");
  app.add_flag("--progress", global.progress,
               "draw the progress bar even if stderr is not a terminal");
  app.add_flag("--no-record", global.noRecord,
               "write no run record (NAME.run.json) beside a reconstruction's output");
  setCommandLine(argc, argv);

  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(makeDemoCommand(app));
  commands.push_back(makeEtDemoCommand(app));
  commands.push_back(makePhantomCommand(app));
  commands.push_back(makeReconCommand(app));
  for (auto& command : makeIterativeReconCommands(*app.get_subcommand("recon")))
    commands.push_back(std::move(command));
  commands.push_back(makeMetricsCommand(app));
  commands.push_back(makeInfoCommand(app));
  commands.push_back(makeGeometryCommand(app));
  commands.push_back(makeConvertCommand(app));
  commands.push_back(makeVariantsCommand(app));
  for (auto& command : makeDicomCommands(app)) commands.push_back(std::move(command));
  for (auto& command : makeQaCommands(app)) commands.push_back(std::move(command));

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  installSignalHandlers();
  try {
    for (auto& command : commands)
      if (command->subcommand()->parsed()) return command->run(global);
  } catch (const tomowb::Cancelled&) {
    std::fprintf(stderr, "\ntomowb-cli: interrupted; no output was written\n");
    return kExitCancelled;
  } catch (const tomowb::OutOfMemoryError& e) {
    std::fprintf(stderr, "\ntomowb-cli: out of memory: %s\n", e.what());
    return kExitOutOfMemory;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "\ntomowb-cli: out of memory\n");
    return kExitOutOfMemory;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\ntomowb-cli: error: %s\n", e.what());
    return kExitError;
  }
  return kExitUsage;
}
