// `tomowb-cli dicom echo|send|query` (docs/dicom.md, "Send to PACS"): test a DICOM node with
// C-ECHO, send a series' files to it with C-STORE (progress; Ctrl-C stops between files) and
// report how many of them the node then holds, and list what it holds of a study or series with
// C-FIND. The node is given by --host, --port, --called-ae and --calling-ae.
#include <algorithm>
#include <cstdio>
#include <map>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/core/Error.h"

#ifdef TOMOWB_HAVE_DICOM
#include "recon/io/dicom/DicomImport.h"
#include "recon/io/dicom/DicomNetwork.h"
#include "recon/job/JobContext.h"
#endif

namespace tomowb::cli {
namespace {

namespace fs = std::filesystem;

#ifdef TOMOWB_HAVE_DICOM
using namespace io::dicom;

// The options every network command takes to name its node.
void addNodeOptions(CLI::App& sub, DicomNode& node) {
  sub.add_option("--host", node.host, "the DICOM node's host name or address")
      ->capture_default_str();
  sub.add_option("--port", node.port, "its DICOM port")->capture_default_str();
  sub.add_option("--called-ae", node.calledAeTitle, "its AE title")->capture_default_str();
  sub.add_option("--calling-ae", node.callingAeTitle,
                 "our AE title (the one the node's administrator registered)")
      ->capture_default_str();
  sub.add_option("--timeout", node.timeoutSeconds,
                 "seconds to wait for a connection and for each answer")
      ->capture_default_str();
  sub.add_option("--name", node.name, "what to call the node in messages (default: its AE title)");
}

nlohmann::json nodeJson(const DicomNode& node) {
  return {{"host", node.host},
          {"port", node.port},
          {"calledAe", node.calledAeTitle},
          {"callingAe", node.callingAeTitle}};
}

class DicomEchoCommand : public Command {
 public:
  explicit DicomEchoCommand(CLI::App& dicomApp) {
    sub_ = dicomApp.add_subcommand("echo",
                                   "test a DICOM node: C-ECHO (is it there, does it "
                                   "accept our AE title?)");
    addNodeOptions(*sub_, node_);
  }
  CLI::App* subcommand() const override { return sub_; }
  int run(const GlobalOptions& global) override {
    validateDicomNode(node_);
    const double seconds = echoDicomNode(node_);
    if (!global.quiet && !global.json)
      std::printf("echo         %s answered in %s\n", node_.describe().c_str(),
                  formatSeconds(seconds).c_str());
    printJson(global, {{"command", "dicom echo"}, {"node", nodeJson(node_)}, {"seconds", seconds}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  DicomNode node_;
};

class DicomSendCommand : public Command {
 public:
  explicit DicomSendCommand(CLI::App& dicomApp) {
    sub_ = dicomApp.add_subcommand(
        "send",
        "send DICOM files (a series' folder, or files) to a DICOM node with C-STORE, then ask "
        "the node how many of them it holds");
    sub_->add_option("inputs", inputs_, "a folder (its DICOM files, not recursive) or files")
        ->required();
    sub_->add_flag("--no-check", noCheck_, "do not ask the node afterwards what arrived");
    addNodeOptions(*sub_, node_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    validateDicomNode(node_);
    const std::vector<fs::path> files = collectFiles();
    const bool text = !global.quiet && !global.json;
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    JobContext context(interruptToken(), &bar);
    const DicomStoreResult result = storeToDicomNode(node_, files, context);
    bar.finish();
    for (const DicomStoreFileStatus& f : result.files)
      if (f.sent && !f.stored)
        std::fprintf(stderr, "refused      %s: %s\n", f.file.string().c_str(), f.message.c_str());
      else if (!f.sent && !result.cancelled && !f.message.empty())
        std::fprintf(stderr, "failed       %s: %s\n", f.file.string().c_str(), f.message.c_str());

    // The series sent, and how many of each the node holds now.
    std::map<std::string, std::int64_t> storedBySeries;
    for (const DicomStoreFileStatus& f : result.files)
      if (f.stored) ++storedBySeries[f.seriesInstanceUid];
    nlohmann::json series = nlohmann::json::array();
    std::int64_t arrived = 0;
    if (!noCheck_ && !result.cancelled)
      for (const auto& [uid, stored] : storedBySeries) {
        const std::int64_t held = instancesHeld(queryDicomNode(node_, "", uid, false), uid);
        arrived += held;
        series.push_back({{"seriesInstanceUid", uid}, {"stored", stored}, {"arrived", held}});
      }
    if (text) {
      std::printf("sent         %lld of %zu files to %s in %s\n",
                  static_cast<long long>(result.storedCount), files.size(),
                  node_.describe().c_str(), formatSeconds(result.seconds).c_str());
      for (const auto& s : series)
        std::printf("arrived      %lld of %lld instances of series %s\n",
                    static_cast<long long>(s["arrived"].get<std::int64_t>()),
                    static_cast<long long>(s["stored"].get<std::int64_t>()),
                    s["seriesInstanceUid"].get<std::string>().c_str());
    }
    nlohmann::json summary{{"command", "dicom send"},
                           {"node", nodeJson(node_)},
                           {"files", files.size()},
                           {"stored", result.storedCount},
                           {"failed", result.failedCount},
                           {"notSent", result.notSentCount},
                           {"cancelled", result.cancelled},
                           {"seconds", result.seconds},
                           {"series", series}};
    if (!noCheck_ && !result.cancelled) summary["arrived"] = arrived;
    printJson(global, summary);
    if (result.cancelled) {
      std::fprintf(stderr,
                   "tomowb-cli: interrupted after %lld of %zu files; the node keeps "
                   "what it received\n",
                   static_cast<long long>(result.storedCount), files.size());
      return kExitCancelled;
    }
    if (result.storedCount != static_cast<std::int64_t>(files.size()))
      throw Error("The DICOM node " + node_.describe() + " stored " +
                  std::to_string(result.storedCount) + " of " + std::to_string(files.size()) +
                  " files (the refused ones are listed above)");
    if (!noCheck_ && arrived < result.storedCount)
      throw Error("The DICOM node " + node_.describe() + " accepted " +
                  std::to_string(result.storedCount) + " files but holds only " +
                  std::to_string(arrived) + " of them");
    return kExitOk;
  }

 private:
  std::vector<fs::path> collectFiles() const {
    std::vector<fs::path> files;
    for (const fs::path& input : inputs_) {
      std::error_code ec;
      if (fs::is_directory(input, ec)) {
        std::vector<fs::path> inFolder;
        for (const auto& entry : fs::directory_iterator(input, ec))
          if (entry.is_regular_file() && looksLikeDicom(entry.path()))
            inFolder.push_back(entry.path());
        if (inFolder.empty()) throw IoError(input, "holds no DICOM file to send");
        std::sort(inFolder.begin(), inFolder.end());
        files.insert(files.end(), inFolder.begin(), inFolder.end());
      } else if (fs::is_regular_file(input, ec)) {
        files.push_back(input);
      } else {
        throw IoError(input, "is neither a file nor a folder");
      }
    }
    return files;
  }

  CLI::App* sub_ = nullptr;
  DicomNode node_;
  std::vector<fs::path> inputs_;
  bool noCheck_ = false;
};

class DicomQueryCommand : public Command {
 public:
  explicit DicomQueryCommand(CLI::App& dicomApp) {
    sub_ = dicomApp.add_subcommand(
        "query", "ask a DICOM node what it holds of a study or a series (C-FIND)");
    sub_->add_option("--study", study_, "Study Instance UID");
    sub_->add_option("--series", series_, "Series Instance UID");
    sub_->add_flag("--instances", instances_,
                   "list each instance (SOP Instance UID, rows x columns)");
    addNodeOptions(*sub_, node_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    validateDicomNode(node_);
    if (study_.empty() && series_.empty())
      throw ParameterError("--study/--series", "give the study's or the series' UID (or both)");
    const auto found = queryDicomNode(node_, study_, series_, instances_);
    const bool text = !global.quiet && !global.json;
    nlohmann::json all = nlohmann::json::array();
    if (text && found.empty())
      std::printf("none         %s holds no such series\n", node_.describe().c_str());
    for (const DicomNodeSeries& s : found) {
      const std::int64_t count =
          instances_ ? static_cast<std::int64_t>(s.instances.size()) : s.reportedInstances;
      if (text) {
        std::printf("%s  %s  series %lld '%s'  %lld instances\n", s.seriesInstanceUid.c_str(),
                    s.modality.c_str(), static_cast<long long>(s.seriesNumber),
                    s.seriesDescription.c_str(), static_cast<long long>(count));
        for (const DicomNodeInstance& i : s.instances)
          std::printf("  %4lld  %s  %lld x %lld\n", static_cast<long long>(i.instanceNumber),
                      i.sopInstanceUid.c_str(), static_cast<long long>(i.columns),
                      static_cast<long long>(i.rows));
      }
      nlohmann::json j{{"studyInstanceUid", s.studyInstanceUid},
                       {"seriesInstanceUid", s.seriesInstanceUid},
                       {"modality", s.modality},
                       {"description", s.seriesDescription},
                       {"seriesNumber", s.seriesNumber},
                       {"instances", count}};
      if (instances_) {
        nlohmann::json list = nlohmann::json::array();
        for (const DicomNodeInstance& i : s.instances)
          list.push_back({{"sopInstanceUid", i.sopInstanceUid},
                          {"instanceNumber", i.instanceNumber},
                          {"rows", i.rows},
                          {"columns", i.columns}});
        j["instanceList"] = list;
      }
      all.push_back(j);
    }
    printJson(global, {{"command", "dicom query"}, {"node", nodeJson(node_)}, {"series", all}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  DicomNode node_;
  std::string study_, series_;
  bool instances_ = false;
};

#else

class NoDicomNetworkCommand : public Command {
 public:
  NoDicomNetworkCommand(CLI::App& parent, const char* name) {
    sub_ = parent.add_subcommand(name, "needs DICOM support (DCMTK)");
    sub_->allow_extras();
  }
  CLI::App* subcommand() const override { return sub_; }
  int run(const GlobalOptions&) override {
    throw ParameterError("dicom",
                         "this build has no DICOM support (DCMTK was not found when it "
                         "was configured; scripts/setup.sh installs libdcmtk-dev)");
  }

 private:
  CLI::App* sub_ = nullptr;
};

#endif

}  // namespace

std::vector<std::unique_ptr<Command>> makeDicomNetworkCommands(CLI::App& app) {
  CLI::App* dicomApp =
      app.add_subcommand("dicom", "talk to a PACS or another DICOM node: echo, send, query");
  dicomApp->require_subcommand(1);
  std::vector<std::unique_ptr<Command>> commands;
#ifdef TOMOWB_HAVE_DICOM
  commands.push_back(std::make_unique<DicomEchoCommand>(*dicomApp));
  commands.push_back(std::make_unique<DicomSendCommand>(*dicomApp));
  commands.push_back(std::make_unique<DicomQueryCommand>(*dicomApp));
#else
  for (const char* name : {"echo", "send", "query"})
    commands.push_back(std::make_unique<NoDicomNetworkCommand>(*dicomApp, name));
#endif
  return commands;
}

}  // namespace tomowb::cli
