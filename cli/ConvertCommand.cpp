// `tomowb-cli convert PROJ --geometry FILE -o OUT.json`: projections in any format we read, with a
// geometry from another file (ProjectionInput.h), written as our raw + JSON pair with the
// geometry embedded, so that every later command and the window open them without --geometry.
#include <cstdio>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "ProjectionInput.h"
#include "recon/core/Error.h"
#include "recon/io/OutputSet.h"
#include "recon/io/VolumeFiles.h"

namespace tomowb::cli {
namespace {

class ConvertCommand : public Command {
 public:
  explicit ConvertCommand(CLI::App& app) {
    sub_ = app.add_subcommand(
        "convert",
        "write projections (any format, with --geometry FILE) as raw + JSON with the geometry");
    sub_->add_option("projections", in_,
                     "projections: .npy, TIFF stack or folder, MRC, MetaImage, raw + JSON, .rct")
        ->required()
        ->check(CLI::ExistingPath);
    sub_->add_option("-o,--out", out_, "raw + JSON pair to write: NAME.json (and NAME.raw)")
        ->required();
    input_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    // The format first: nothing is read for an output we cannot write.
    if (io::dataFormatForPath(out_) != io::DataFormat::RawJson)
      throw ParameterError("--out", "'" + out_ +
                                        "': projections with their geometry are written as "
                                        "NAME.json + NAME.raw; give a .json path");
    // Every file read and written, checked against each other before any work (OutputSet.h).
    io::OutputSet files(&interruptToken());
    files.addInput(in_, "-i", "projections");
    if (!input_.geometry.empty()) files.addInput(input_.geometry, "--geometry", "geometry", false);
    files.addOutput(out_, "-o");
    files.check();
    std::vector<std::string> warnings;
    const io::LoadedProjections loaded = input_.load(in_, input_.attachment(), warnings);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    io::writeProjections(files.staged(out_), loaded.projections);
    files.commit();  // NAME.json and NAME.raw together, or neither
    const ProjectionStack& p = loaded.projections;
    if (!global.quiet && !global.json) {
      std::printf("read %s\n", loaded.summary.c_str());
      std::printf("wrote %s and its data file: %lld views of %lld x %lld, %s beam\n", out_.c_str(),
                  static_cast<long long>(p.viewCount()), static_cast<long long>(p.cols()),
                  static_cast<long long>(p.rows()), toString(p.geometry().beam()).c_str());
    }
    printJson(global, {{"command", "convert"},
                       {"input", in_},
                       {"geometryFile", input_.geometry},
                       {"geometryFormat", loaded.geometryFormat
                                              ? std::string(toString(*loaded.geometryFormat))
                                              : std::string("own")},
                       {"layout", io::toString(loaded.layout)},
                       {"output", out_},
                       {"views", p.viewCount()},
                       {"rows", p.rows()},
                       {"cols", p.cols()},
                       {"warnings", warnings}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string in_, out_;
  ProjectionInputOptions input_;
};

}  // namespace

std::unique_ptr<Command> makeConvertCommand(CLI::App& app) {
  return std::make_unique<ConvertCommand>(app);
}

}  // namespace tomowb::cli
