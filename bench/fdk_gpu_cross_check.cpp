// fdk_gpu_cross_check.cpp: tomowb-bench-fdk-gpu's section "why tables differ": one kernel timed
// three ways (all views, chunks, inside reconstructFdk) here and in the QA sweep's case.
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "bench/fdk_gpu_internal.h"
#include "recon/fdk/cuda/GpuFdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"

namespace fdk_gpu {

namespace {

// The case `tomowb-cli sweep --algorithm fdk --size 256 --views 360` runs (cli/QaCommands.cpp,
// GeometryOptions' defaults): SOD 500 mm, SDD 1000 mm, 256 x 300 pixels of 1.6 mm, 360 views,
// 256^3 voxels of 0.8 mm, the modified Shepp-Logan of scale 100 mm.
constexpr std::int64_t kSweepSize = 256, kSweepViews = 360;
CircularConeParams sweepScan() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = kSweepSize;
  p.detector.rows = std::int64_t(std::ceil(double(kSweepSize) * 300.0 / 256.0));
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0 * 204.8 / double(kSweepSize);
  p.anglesRad = fullScanAnglesRad(kSweepViews);
  return p;
}

// ---- why tables differ: one kernel timed three ways
// ------------------------------------------------

struct CrossCheckRow {
  std::string caseName, variant, kernel;
  std::int64_t size = 0, views = 0, chunkViews = 0;
  RunStats allViews, chunked, inPipeline;
};

// (a) one launch sequence over all views from one resident buffer (the kernel table's method);
// (b) the same random views in chunks of `chunkViews`, each chunk from its own buffer, the sum of
//     the chunks' kernel times (the pipeline's kernel work without the filtering between);
// (c) inside reconstructFdk on the phantom: the sum of the per-chunk backprojection events
//     (the end-to-end table's "Backproject" and the QA sweep's "median s").
CrossCheckRow crossCheck(const Context& ctx, const std::string& caseName,
                         const ProjectionStack& random, const ProjectionStack& phantom,
                         const fdk::VolumeGrid& grid, const std::string& variant) {
  const Options& o = ctx.options;
  CrossCheckRow row;
  row.caseName = caseName;
  row.variant = variant;
  row.size = grid.shape.nx;
  row.views = random.viewCount();
  row.chunkViews = std::min(o.chunkViews, random.viewCount());
  Volume volume = emptyVolume(grid);
  row.allViews = timeKernel(random, variant, o.device, o.repeats, volume, row.kernel, nullptr);
  {
    const auto [name, tunables] = splitVariant(variant);
    std::vector<std::unique_ptr<cuda::DeviceBackprojection>> chunks;
    for (std::int64_t v0 = 0; v0 < random.viewCount(); v0 += row.chunkViews) {
      const ProjectionStack part =
          bench::viewRange(random, v0, std::min(row.chunkViews, random.viewCount() - v0));
      chunks.push_back(
          std::make_unique<cuda::DeviceBackprojection>(part, volume, name, tunables, o.device));
    }
    for (auto& c : chunks) c->run();  // warm-up
    std::vector<double> sums;
    for (int r = 0; r < o.repeats; ++r) {
      double sum = 0;
      for (auto& c : chunks) sum += c->run();
      sums.push_back(sum);
    }
    row.chunked = bench::summarize(sums);
  }
  std::vector<double> inPipeline;
  for (int r = 0; r <= o.repeats; ++r) {
    JobContext context;
    fdk::FdkReport report;
    fdk::reconstructFdk(phantom, fdkParams(grid, variant, {o.device}), context, &report);
    if (r > 0) inPipeline.push_back(report.backprojectSeconds);
  }
  row.inPipeline = bench::summarize(inPipeline);
  return row;
}

std::string crossCheckTable(const Context& ctx, const std::vector<CrossCheckRow>& rows) {
  std::ostringstream t;
  t << "| Case | Variant (kernel) | Texels | Volume, views | (a) all views, one buffer: GUPS "
       "median (min-max) | (b) chunks, own buffers: GUPS median (min-max) | (c) inside "
       "reconstructFdk: GUPS median (min-max) | (b) / (a) | (c) / (a) | (a) of ceiling |\n"
    << "|---|---|---|---|---|---|---|---:|---:|---:|\n";
  for (const CrossCheckRow& r : rows) {
    const double u = updates(r.size, r.views);
    auto cell = [&](const RunStats& s) {
      return fixed(gupsOf(u, s.median), 0) + " (" + fixed(gupsOf(u, s.max), 0) + "-" +
             fixed(gupsOf(u, s.min), 0) + ")";
    };
    t << "| " << r.caseName << " | " << r.variant
      << (r.kernel == splitVariant(r.variant).first ? "" : " (" + r.kernel + ")") << " | "
      << bench::fdkTexelFormat(r.kernel) << " | " << r.size << "³, " << r.views << " | "
      << cell(r.allViews) << " | " << cell(r.chunked) << " (" << r.chunkViews << " views) | "
      << cell(r.inPipeline) << " | " << fixed(r.allViews.median / r.chunked.median, 2) << " | "
      << fixed(r.allViews.median / r.inPipeline.median, 2) << " | ";
    const double ceiling = ceilingFor(ctx, r.kernel);
    t << (std::isfinite(ceiling) ? bench::fractionOfCeiling(gupsOf(u, r.allViews.median), ceiling)
                                 : "n/a")
      << " |\n";
  }
  return t.str();
}

}  // namespace

void crossCheckSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  std::ostringstream md;
  md << "\n### Why figures for one kernel differ between tables: the same kernel timed three "
        "ways\n\n"
        "(a) the kernel table's method: every view in one resident buffer, one launch sequence. "
        "(b) the same views in chunks of "
     << o.chunkViews
     << " (what the pipeline hands the kernel), each chunk from its own buffer, the chunks' "
        "kernel times summed. (c) inside reconstructFdk on the Shepp-Logan projections: the "
        "per-chunk backprojection events summed, with filtering between the chunks (the "
        "end-to-end table's Backproject and `tomowb-cli sweep`'s median s). The last case is "
        "the QA sweep's (bench/results/2026-11-23-h100-qa-sweep.md: 256³ from 360 views of 256 "
        "x 300 pixels): a detector 15x smaller than RabbitCT's, so GUPS differ from the "
        "RabbitCT-like rows with the case, not with the method. Ratios > 1: faster than (a). "
        "Each: median of "
     << o.repeats << " runs after a warm-up, (slowest-fastest) in brackets.\n\n";
  writer.add(md.str());
  std::vector<CrossCheckRow> rows;
  std::ostringstream failures;
  const auto run = [&](const std::string& caseName, const ProjectionStack& random,
                       const ProjectionStack& phantom, const fdk::VolumeGrid& grid) {
    for (const std::string& name : o.crossCheckVariants) {
      try {
        rows.push_back(crossCheck(ctx, caseName, random, phantom, grid, fullName(name)));
        const CrossCheckRow& r = rows.back();
        progress("cross-check " + caseName + " " + r.variant + ": (a) " +
                 fixed(r.allViews.median * 1e3, 2) + " ms, (b) " +
                 fixed(r.chunked.median * 1e3, 2) + " ms, (c) " +
                 fixed(r.inPipeline.median * 1e3, 2) + " ms");
        ctx.report["crossCheck"].push_back({{"case", r.caseName},
                                            {"variant", r.variant},
                                            {"kernel", r.kernel},
                                            {"size", r.size},
                                            {"views", r.views},
                                            {"chunkViews", r.chunkViews},
                                            {"allViewsSeconds", toJson(r.allViews)},
                                            {"chunkedSeconds", toJson(r.chunked)},
                                            {"inPipelineSeconds", toJson(r.inPipeline)}});
      } catch (const std::exception& e) {
        failures << "- " << caseName << " " << fullName(name) << " failed: " << e.what() << "\n";
      }
    }
  };
  run("RabbitCT-like", ctx.random, ctx.phantom, cubeGrid(o.crossCheckSize));
  {
    const Geometry sweep = circularConeBeam(sweepScan());
    ProjectionStack random(sweep);
    bench::fillZeroMeanRandom(random);
    const ProjectionStack phantom =
        phantom::projectPhantom(phantom::modifiedSheppLogan3d(100.0), sweep);
    run("QA sweep's demo", random, phantom, cubeGrid(kSweepSize, 204.8));
  }
  writer.add(crossCheckTable(ctx, rows) + failures.str());
  writer.save(ctx.report);
}

}  // namespace fdk_gpu
