// ReconInputs: see the header.
#include "ReconInputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>
#include <utility>

#include "RunRecords.h"
#include "recon/core/Error.h"
#include "recon/io/MrcIo.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/preprocess/TiltSeriesPreprocess.h"

namespace tomowb::cli {

namespace {

// Input and output, the tilt series' companion files and preprocessing, and the tomogram grid:
// --thickness for tilt series, or the grid options.
class TomogramInput : public ReconInput {
 public:
  ProjectionInputOptions input;
  std::int64_t thickness = 0;
  GridOptions gridOptions;
  std::string tiltFile, xfFile, xtiltFile;
  double pixelNm = 0, tiltAxisDeg = 0, tiltAxisShift = 0, xAxisTiltDeg = 0;
  std::vector<std::int64_t> crop;
  int binning = 1;
  bool logTransform = false;
  double i0 = 0;
  std::string normalise = "none";
  std::string mrcAxes = "identity";

  void addInputOptionsTo(CLI::App& app) {
    auto* t = app.add_option_group("Tilt series", "companion files, geometry and preprocessing");
    t->add_option("--tilt-angles", tiltFile,
                  "tilt angles, degrees, one per line (.tlt/.rawtlt; default NAME.tlt beside "
                  "an MRC stack, else its SerialEM header)")
        ->check(CLI::ExistingFile);
    t->add_option("--xf", xfFile, "IMOD .xf alignment (default NAME.xf beside the stack)")
        ->check(CLI::ExistingFile);
    t->add_option("--xtilt", xtiltFile, "IMOD .xtilt x-axis tilts (default NAME.xtilt)")
        ->check(CLI::ExistingFile);
    t->add_option("--pixel-nm", pixelNm, "pixel size, nm (default: the MRC header)")
        ->check(CLI::PositiveNumber);
    t->add_option("--tilt-axis-deg", tiltAxisDeg,
                  "tilt-axis angle in the image, counter-clockwise from the row axis, degrees");
    t->add_option("--tilt-axis-shift", tiltAxisShift,
                  "where the tilt axis crosses the image, pixels from the centre");
    t->add_option("--x-axis-tilt-deg", xAxisTiltDeg, "tilt of the whole series about x, degrees");
    t->add_option("--crop", crop, "FIRST_COL COLS FIRST_ROW ROWS: keep this block of the detector")
        ->expected(4);
    t->add_option("--bin", binning, "average BIN x BIN pixels")->check(CLI::Range(1, 64));
    t->add_flag("--log", logTransform,
                "absorption contrast: -ln(I / I0) of each pixel (I0 per view, or --i0)");
    t->add_option("--i0", i0,
                  "unattenuated intensity for --log (default: per view, 99.5th "
                  "percentile)")
        ->check(CLI::PositiveNumber);
    t->add_option("--normalise", normalise,
                  "per view: none, mean (divide by it) or "
                  "zero-mean-unit-var")
        ->check(CLI::IsMember({"none", "mean", "zero-mean-unit-var"}))
        ->capture_default_str();
  }

  // The projections as the options say: with --geometry FILE any format through the core's
  // loader (tilt-series settings apply to a .tlt); else an MRC stack (or any file with
  // --tilt-angles) through the tilt-series loader, anything else as a file with its own geometry.
  // Then the preprocessing.
  io::TiltSeriesOptions tiltOptions() const {
    io::TiltSeriesOptions options;
    options.pixelSizeMm = pixelNm * 1e-6;
    options.tiltAxisAngleRad = tiltAxisDeg * std::numbers::pi / 180;
    options.tiltAxisShiftPixels = tiltAxisShift;
    options.xAxisTiltRad = xAxisTiltDeg * std::numbers::pi / 180;
    return options;
  }
  io::GeometryAttachment attachmentWithTilts() const {
    if (!tiltFile.empty())
      throw ParameterError("--tilt-angles", "give the tilt angles either here or as --geometry");
    io::GeometryAttachment a = input.attachment();
    a.tilt = tiltOptions();
    a.alignment = xfFile;
    a.xAxisTilts = xtiltFile;
    return a;
  }
  io::TiltSeriesSources tiltSources() const {
    io::TiltSeriesSources sources = io::findCompanionFiles(in);
    sources.stack = in;
    if (!tiltFile.empty()) sources.tiltAngles = tiltFile;
    if (!xfFile.empty()) sources.alignment = xfFile;
    if (!xtiltFile.empty()) sources.xAxisTilts = xtiltFile;
    return sources;
  }
  bool preprocesses() const {
    return !crop.empty() || binning > 1 || logTransform || normalise != "none";
  }

  // A slab run reads a band of rows at a time where nothing needs whole views first (--crop,
  // --bin, --log and --normalise do): an MRC or TIFF tilt series with its companion files, or a
  // stack with --geometry as `recon fdk` reads it; else nullptr (loaded whole).
  std::unique_ptr<scale::ProjectionRowSource> openRowsOnDisk(const GlobalOptions& global) override {
    if (preprocesses()) return nullptr;
    std::optional<io::ProjectionStackOnDisk> stack;
    if (!input.geometry.empty())
      stack = io::describeProjectionStackOnDisk(in, attachmentWithTilts());
    else if (io::isMrcPath(in) || !tiltFile.empty())  // as load() takes the tilt-series loader
      stack = io::describeTiltSeriesOnDisk(tiltSources(), tiltOptions());
    if (!stack) return nullptr;
    for (const std::string& w : stack->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) std::printf("read %s\n", stack->summary.c_str());
    return scale::openProjectionStackRows(std::move(*stack));
  }

  ProjectionStack load(JobContext& context, std::vector<std::string>& warnings,
                       const GlobalOptions&) override {
    const io::TiltSeriesOptions options = tiltOptions();
    ProjectionStack stack;
    if (!input.geometry.empty()) {
      stack = std::move(input.load(in, attachmentWithTilts(), warnings).projections);
    } else if (io::isMrcPath(in) || !tiltFile.empty()) {
      io::LoadedTiltSeries loaded = io::loadTiltSeries(tiltSources(), options);
      warnings.insert(warnings.end(), loaded.warnings.begin(), loaded.warnings.end());
      stack = std::move(loaded.projections);
    } else {
      stack = std::move(input.load(in, input.attachment(), warnings).projections);
    }
    preprocess::TiltSeriesPreprocessing pre;
    if (!crop.empty()) {
      pre.firstCol = crop[0];
      pre.cols = crop[1];
      pre.firstRow = crop[2];
      pre.rows = crop[3];
    }
    pre.binning = binning;
    pre.logTransform = logTransform;
    pre.i0 = i0;
    pre.normalisation = normalise == "mean" ? preprocess::ViewNormalisation::DivideByMean
                        : normalise == "zero-mean-unit-var"
                            ? preprocess::ViewNormalisation::ZeroMeanUnitVariance
                            : preprocess::ViewNormalisation::None;
    if (!preprocesses()) return stack;
    return preprocess::preprocessTiltSeries(stack, pre, context, &warnings);
  }

  void addTo(CLI::App& app) override {
    app.add_option("-i,--in", in,
                   "projections: a tilt series (.mrc, .st, .ali with NAME.tlt beside it), "
                   "NAME.json (raw + JSON with geometry), or .npy, TIFF, MRC, MetaImage with "
                   "--geometry FILE")
        ->required()
        ->check(CLI::ExistingPath);
    input.addTo(app);
    app.add_option("-o,--out", out, "volume to write: .mhd, .mha, .json/.raw, .npy, .tif, .mrc")
        ->required();
    app.add_option("--mrc-axes", mrcAxes,
                   "axis order of an .mrc/.rec output: identity (x, y, z) or imod (file X, Y, Z "
                   "= -x, tilt axis z, thickness y, as IMOD shows tomograms)")
        ->check(CLI::IsMember({"identity", "imod"}))
        ->capture_default_str();
    app.add_option("--thickness", thickness,
                   "tomogram thickness in voxels (tilt series; default: a quarter of the "
                   "detector width)")
        ->check(CLI::Range(1, 1 << 20));
    gridOptions.addTo(app);
    addInputOptionsTo(app);
  }

  // Every file load() reads: the stack, and for a tilt series its companion files.
  void addInputsTo(io::OutputSet& files) const override {
    addProjectionInputs(files, in, io::isMrcPath(in), tiltFile, xfFile, xtiltFile);
    if (!input.geometry.empty()) files.addInput(input.geometry, "--geometry", "geometry", false);
  }

  io::VolumeWriteOptions writeOptions() const override {
    io::VolumeWriteOptions options;
    options.mrc.axisOrder = mrcAxes == "imod" ? io::MrcAxisOrder::Imod : io::MrcAxisOrder::Identity;
    return options;
  }

  // The ET tomogram (detector width x thickness x detector height) unless --shape or --size
  // asks for another grid.
  VolumeGrid grid(const Geometry& geometry) const override {
    if (!gridOptions.shape.empty() || gridOptions.size > 0) return gridOptions.build(geometry);
    const std::int64_t t =
        thickness > 0 ? thickness : std::max<std::int64_t>(1, geometry.detector().cols / 4);
    fdk::VolumeGrid g = iterative::tomogramGrid(geometry, t);
    if (gridOptions.voxelMm > 0) {
      const Eigen::Vector3d extent = g.voxelSizeMm.cwiseProduct(
          Eigen::Vector3d(static_cast<double>(g.shape.nx), static_cast<double>(g.shape.ny),
                          static_cast<double>(g.shape.nz)));
      const auto cells = [&](double mm) {
        return std::max<std::int64_t>(1, std::llround(mm / gridOptions.voxelMm));
      };
      g = fdk::VolumeGrid::centred({cells(extent.x()), cells(extent.y()), cells(extent.z())},
                                   Eigen::Vector3d::Constant(gridOptions.voxelMm));
    }
    if (!gridOptions.originMm.empty())
      g.originMm = Eigen::Vector3d(gridOptions.originMm[0], gridOptions.originMm[1],
                                   gridOptions.originMm[2]);
    return g;
  }
};

// `recon fdk`: any projection file (with --geometry FILE), the field-of-view grid.
class FieldOfViewInput : public ReconInput {
 public:
  explicit FieldOfViewInput(bool illuminated) { grid_.illuminated = illuminated; }
  void addTo(CLI::App& app) override {
    app.add_option("-i,--in", in,
                   "projections: NAME.json (raw + JSON with geometry), .rct, an MRC tilt "
                   "series, or .npy, TIFF, MRC, MetaImage with --geometry FILE")
        ->required()
        ->check(CLI::ExistingPath);
    input_.addTo(app);
    app.add_option("-o,--out", out, "volume to write: .mhd, .mha, .json/.raw, .npy, .tif")
        ->required();
    grid_.addTo(app);
  }
  void addInputsTo(io::OutputSet& files) const override {
    addProjectionInputs(files, in, io::isMrcPath(in), {}, {}, {});
    if (!input_.geometry.empty()) files.addInput(input_.geometry, "--geometry", "geometry", false);
  }
  ProjectionStack load(JobContext&, std::vector<std::string>& warnings,
                       const GlobalOptions& global) override {
    io::LoadedProjections loaded = input_.load(in, input_.attachment(), warnings);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    warnings.clear();
    printLoadSummary(loaded, global.quiet, global.json);
    layout_ = io::toString(loaded.layout);
    return std::move(loaded.projections);
  }
  std::unique_ptr<scale::ProjectionRowSource> openRowsOnDisk(const GlobalOptions& global) override {
    std::optional<io::ProjectionStackOnDisk> stack =
        io::describeProjectionStackOnDisk(in, input_.attachment());
    if (!stack) return nullptr;
    for (const std::string& w : stack->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) std::printf("read %s\n", stack->summary.c_str());
    layout_ = io::toString(stack->layout);
    return scale::openProjectionStackRows(std::move(*stack));
  }
  VolumeGrid grid(const Geometry& geometry) const override { return grid_.build(geometry); }
  nlohmann::json summaryFields() const override {
    return {{"geometryFile", input_.geometry}, {"layout", layout_}};
  }

 private:
  ProjectionInputOptions input_;
  GridOptions grid_;
  std::string layout_;
};

}  // namespace

std::unique_ptr<ReconInput> makeReconInput(catalog::GridPolicy policy) {
  if (policy == catalog::GridPolicy::Tomogram) return std::make_unique<TomogramInput>();
  return std::make_unique<FieldOfViewInput>(policy == catalog::GridPolicy::IlluminatedVolume);
}

}  // namespace tomowb::cli
