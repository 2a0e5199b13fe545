// tomowb-cli: every workbench algorithm headless (DESIGN.md, "command line"). Exit codes:
// 0 success, 1 error (bad file or parameter, I/O), 2 usage, 3 out of memory, 130 interrupted.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "RunRecords.h"
#include "recon/catalog/Builtins.h"
#include "recon/core/Error.h"
#include "recon/io/OutputSet.h"

int main(int argc, char** argv) {
  tomowb::cli::tracePhase("main");
  // Before anything can touch CUDA or start a thread: ranks sharing a machine take one GPU each
  // and their share of its cores.
  tomowb::cli::bindLocalRankToOneGpu(argc, argv);
  tomowb::cli::widenSingleCoreLauncherBinding();
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  using namespace tomowb::cli;
  // First thing: a Ctrl-C or SIGTERM from here on cancels the run (a second one ends it at once).
  installSignalHandlers();
  CLI::App app{
      "Tomo Workbench command line: phantoms, FDK, SIRT and ET reconstruction, metrics, file "
      "info.\n"
      "Exit codes: 0 ok, 1 error, 2 usage, 3 out of memory, 4 a check failed, 130 interrupted.",
      "tomowb-cli"};
  app.require_subcommand(1);
  // Global options may also follow the subcommand (`tomowb-cli demo --json`): options a
  // subcommand does not know fall through to its parent. Inherited by every subcommand.
  app.fallthrough();
  app.set_version_flag("--version", std::string("tomowb-cli ") + TOMOWB_VERSION);
  GlobalOptions global;
  app.add_flag("--json", global.json, "print a machine-readable JSON summary on stdout");
  app.add_flag("-q,--quiet", global.quiet, "no progress bar and no text summary");
  app.add_flag("--progress", global.progress,
               "draw the progress bar even if stderr is not a terminal");
  app.add_flag("--no-record", global.noRecord,
               "write no run record (NAME.run.json) beside a reconstruction's output");
  app.add_option("--progress-file", global.progressFile,
                 "keep FILE up to date with the run's state and progress (JSON, replaced "
                 "atomically at most every 0.5 s and at the end; rank K of several writes "
                 "NAME.rank<K>.json; docs/cli.md)");
  setCommandLine(argc, argv);

  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(makeDemoCommand(app));
  commands.push_back(makeEtDemoCommand(app));
  commands.push_back(makePhantomCommand(app));
  for (auto& command : makeReconCommands(app)) commands.push_back(std::move(command));
  commands.push_back(makeMetricsCommand(app));
  commands.push_back(makeInfoCommand(app));
  commands.push_back(makeGeometryCommand(app));
  commands.push_back(makeConvertCommand(app));
  commands.push_back(makeVariantsCommand(app));
  for (auto& command : makeDicomCommands(app)) commands.push_back(std::move(command));
  for (auto& command : makeQaCommands(app)) commands.push_back(std::move(command));
  for (auto& command : makePetCommands(app)) commands.push_back(std::move(command));
  for (auto& command : makeClusterCommands(app)) commands.push_back(std::move(command));

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  // The progress file (if any) hears the end of the run in every case: done, cancelled, failed.
  const auto finish = [](int code, const std::string& message) {
    finishProgressFile(code == kExitOk          ? tomowb::io::ProgressState::Done
                       : code == kExitCancelled ? tomowb::io::ProgressState::Cancelled
                                                : tomowb::io::ProgressState::Failed,
                       code, message);
    return code;
  };
  try {
    if (!global.progressFile.empty()) startProgressFile(global.progressFile);
    for (auto& command : commands)
      if (command->subcommand()->parsed()) {
        const int code = command->run(global);
        tracePhase("command returned");
        return finish(code, code == kExitOk ? "" : "exit status " + std::to_string(code));
      }
  } catch (const tomowb::Cancelled&) {
    std::fprintf(stderr, "\ntomowb-cli: interrupted; no output was written\n");
    return finish(kExitCancelled, "interrupted");
  } catch (const tomowb::OutOfMemoryError& e) {
    std::fprintf(stderr, "\ntomowb-cli: out of memory: %s\n", e.what());
    return finish(kExitOutOfMemory, std::string("out of memory: ") + e.what());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "\ntomowb-cli: out of memory\n");
    return finish(kExitOutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    // A blocking call that a signal interrupted (EINTR: the handlers do not restart calls) fails
    // with its own message; the run was cancelled all the same.
    const std::string message = tomowb::io::OutputSet::withFinalNames(e.what());
    if (interruptToken().requested()) {
      std::fprintf(stderr, "\ntomowb-cli: interrupted (%s); no output was written\n",
                   message.c_str());
      return finish(kExitCancelled, "interrupted (" + message + ")");
    }
    std::fprintf(stderr, "\ntomowb-cli: error: %s\n", message.c_str());
    return finish(kExitError, message);
  }
  return kExitUsage;
}
