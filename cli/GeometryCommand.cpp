// `tomowb-cli geometry`: write a geometry JSON from scan parameters, or import one from ASTRA
// vector text or per-view 3x4 matrices.
#include <cstdio>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/core/Error.h"
#include "recon/io/GeometryImport.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/OutputSet.h"

namespace tomowb::cli {
namespace {

class GeometryCommand : public Command {
 public:
  explicit GeometryCommand(CLI::App& app) {
    sub_ = app.add_subcommand("geometry", "build or import a scan geometry and save it as JSON");
    sub_->add_option("-o,--out", out_, "geometry JSON to write")->required();
    geometry_.addTo(*sub_);
    auto* import = sub_->add_option_group("Import", "geometry from another tool");
    import
        ->add_option("--import-astra", astra_,
                     "ASTRA cone_vec / parallel3d_vec saved as text: 12 numbers per view "
                     "(--beam says which; with --detector arc, cyl_cone_vec: u the arc's tangent "
                     "at the detector centre, |u| the arc length per column); needs --cols and "
                     "--rows")
        ->check(CLI::ExistingFile);
    import
        ->add_option("--import-matrices", matrices_,
                     "per-view 3x4 projection matrices as text, 12 numbers per view, row-major; "
                     "needs --cols and --rows (--pitch-mm places the detector)")
        ->check(CLI::ExistingFile);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    io::OutputSet files;
    files.addInput(geometry_.file, "--geometry", "geometry", false);
    files.addInput(astra_, "--import-astra", "geometry", false);
    files.addInput(matrices_, "--import-matrices", "geometry", false);
    files.addOutput(out_, "-o");
    files.check();
    const BeamKind beam = geometry_.beam == "parallel" ? BeamKind::Parallel : BeamKind::Cone;
    const DetectorShape detector{geometry_.cols, geometry_.rows};
    Geometry g;
    if (!astra_.empty()) {
      g = importAstraVectors(astra_, beam, detector);
      if (geometry_.detector == "arc") {
        for (std::int64_t i = 0; i < g.viewCount(); ++i)
          g.view(i).surface = DetectorSurface::Cylinder;
        try {
          g.validate();
        } catch (const ParameterError& e) {
          throw FormatError(astra_, std::string("as cyl_cone_vec (--detector arc): ") + e.what());
        }
      }
    } else if (!matrices_.empty())
      g = importMatrixText(matrices_, beam, detector, geometry_.pitchMm);
    else
      g = geometry_.build();
    saveGeometry(out_, g);
    if (!global.quiet && !global.json)
      std::printf("wrote %s: %s beam, %lld views, %s detector %lld x %lld\n", out_.c_str(),
                  toString(g.beam()).c_str(), static_cast<long long>(g.viewCount()),
                  g.hasCylindricalViews() ? "arc" : "flat",
                  static_cast<long long>(g.detector().cols),
                  static_cast<long long>(g.detector().rows));
    printJson(global, {{"command", "geometry"}, {"output", out_}, {"views", g.viewCount()}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  GeometryOptions geometry_;
  std::string out_, astra_, matrices_;
};

}  // namespace

std::unique_ptr<Command> makeGeometryCommand(CLI::App& app) {
  return std::make_unique<GeometryCommand>(app);
}

}  // namespace tomowb::cli
