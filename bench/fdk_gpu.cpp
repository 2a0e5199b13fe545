// GPU FDK benchmark of issue #6 in the layout of seed 000's Table I (fdk-and-large-data.md,
// part A), with the honesty rules of DESIGN.md "Measuring" (issue #17 point 6): a RabbitCT-like
// scan (496 views over 360 degrees, flat 1248 x 960 detector of 0.6 mm, source-to-isocentre
// 750 mm, source-to-detector 1250 mm) and a 256 mm cube at the isocentre, so every voxel is seen
// from every view, at the sizes asked (--sizes).
//  1. Kernel only (cuda::DeviceBackprojection): filtered projections already on the GPU, all
//     views in one resident buffer, the variant's kernels timed with CUDA events. Per variant:
//     the texel format, min / median / max of --repeats (>= 5) runs after a warm-up, GUPS (1e9
//     and seed 000's 2^30 basis), the fraction of the sampling ceiling of the kernel's texel
//     format (reference/gpu-limits-h100.md), the relative L2 error at sampled voxels against a
//     float64 reference on zero-mean random data AND on the positive line integrals of the
//     modified Shepp-Logan phantom (references computed once per size), the NRMSE of the whole
//     FDK against fdk.bp.cpu-f64 at --phantom-sizes, and the speed-up over the previous row.
//     A headline names the fastest kernel with its texel format, and the fastest float32 ones.
//  2. End to end (fdk::reconstructFdk): projections in host memory (pinned), weighting and ramp
//     filtering, backprojection, volume back in host memory; min / median / max of the wall
//     time, and the median run's stages split so that the serial columns add up to the wall
//     time, the overlapped upload beside them.
//  3. Why tables differ for one kernel (--cross-check): the same variant timed three ways (one
//     launch sequence over all views; the same views in pipeline-sized chunks, each from its
//     own buffer; inside reconstructFdk), in this geometry and in the case of `tomowb-cli sweep
//     --algorithm fdk --size 256 --views 360` (bench/results/2026-11-23-h100-qa-sweep.md).
//  4. One GPU against two, when two are visible.
// Writes Markdown (stdout, --out) and JSON (--json). Progress goes to stderr. Peer figures are
// never typed in here: reference/gpu-limits-h100.md's ASTRA and TIGRE figures are printed only
// in a table headed "cited", with their source, date and device.
// This file: the report's sections and main; the measuring in fdk_gpu_measure.cpp, the tables in
// fdk_gpu_tables.cpp, the cross-check in fdk_gpu_cross_check.cpp (shared: fdk_gpu_internal.h).
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/BenchSupport.h"
#include "bench/fdk_gpu_internal.h"
#include "recon/catalog/Builtins.h"
#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/RabbitCtReader.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"

using namespace fdk_gpu;

namespace {

CircularConeParams rabbitLikeScan() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 750;
  p.sourceToDetectorMm = 1250;
  p.detector.cols = 1248;
  p.detector.rows = 960;
  p.detector.pitchUMm = p.detector.pitchVMm = 0.6;
  p.anglesRad = fullScanAnglesRad(scanViews);
  return p;
}

// ---- RabbitCT --------------------------------------------------------------------------------

std::string rabbitCtSection(const Context& ctx) {
  const Options& o = ctx.options;
  std::ostringstream t;
  t << "\n### RabbitCT data: " << o.rabbitct << "\n\n";
  io::RabbitCtProjections data;
  try {
    data = io::readRabbitCt(o.rabbitct);
  } catch (const std::exception& e) {
    t << "Could not read it: " << e.what() << "\n";
    return t.str();
  }
  const std::int64_t views = data.projections.viewCount();
  t << views << " filtered views of " << data.projections.cols() << " x " << data.projections.rows()
    << ". RabbitCT's MSE (HU^2) is not reported: recon/io/RabbitCtReader reads the projections "
       "only, not RabbitCT's reference volumes. rel. L2 err: at "
    << o.samples << " sampled voxels against the float64 reference of the same data.\n\n"
    << "| Variant | Texels | Volume | Runs | Total (ms) min / median / max | Mean per view (ms) "
       "| GUPS (1e9) | GUPS (2^30) | Fraction of ceiling | rel. L2 err vs float64 |\n"
    << "|---|---|---|---:|---|---:|---:|---:|---:|---:|\n";
  for (const std::int64_t size : o.sizes) {
    // RabbitCT's volume: R_L = 256 mm / L, origin -R_L (L - 1) / 2: our centred cube.
    Volume volume = emptyVolume(cubeGrid(size));
    const std::vector<bench::VoxelSample> samples = bench::sampleVoxels(volume.shape(), o.samples);
    const std::vector<double> reference =
        bench::referenceAtSamples(data.projections, volume, samples);
    const std::string name = "fdk.bp.fast";
    try {
      std::string kernel;
      const RunStats s =
          timeKernel(data.projections, name, o.device, o.repeats, volume, kernel, nullptr);
      const double u = updates(size, views);
      const double ceiling = ceilingFor(ctx, kernel);
      t << "| " << name << (kernel == name ? "" : " (ran " + kernel + ")") << " | "
        << bench::fdkTexelFormat(kernel) << " | " << size << "³ | " << s.runs << " | "
        << bench::minMedianMax(s, 1e3, 2) << " | " << fixed(s.median / double(views) * 1e3, 3)
        << " | " << fixed(u / s.median / 1e9, 1) << " | "
        << fixed(u / s.median / double(1u << 30), 1) << " | "
        << bench::fractionOfCeiling(u / s.median / 1e9, ceiling) << " | "
        << scientific(bench::relativeL2AtSamples(volume, samples, reference)) << " |\n";
    } catch (const std::exception& e) {
      t << "| " << name << " | | " << size << "³ | failed: " << e.what() << " | | | | | | |\n";
    }
  }
  return t.str();
}

// ---- sections
// ------------------------------------------------------------------------------------

std::string citedPeers() {
  const char* source = "reference/gpu-limits-h100.md, \"The peers, same H100, same geometry\"";
  const char* date = "2026-11-23";
  const char* device = "NVIDIA H100 80GB HBM3 (driver 580.159.04)";
  return bench::citedTable(
             "the peers in the same geometry (random projections; not re-measured here)",
             {{"ASTRA 2.5.99, 512³, kernels only (projections in the texture array), GUPS", "462",
               source, date, device},
              {"ASTRA 2.5.99, 1024³, kernels only, GUPS", "482", source, date, device},
              {"TIGRE 2026-06, 512³, kernels only (projections on the GPU), GUPS", "420", source,
               date, device},
              {"TIGRE 2026-06, 1024³, kernels only, GUPS", "440", source, date, device},
              {"ASTRA, 512³, host to host (pageable copies + backprojection), GUPS", "135", source,
               date, device},
              {"TIGRE, 512³, its full call (pin, copy in, kernels, copy out), GUPS", "185", source,
               date, device}}) +
         "\nThese come from another run of code that is not part of the project; no ratio to "
         "them is printed. To compare, build the peers and time them in the same device call "
         "on the same case.\n";
}

void kernelSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  writer.add(
      "\n### Kernel only: filtered projections on the GPU, CUDA-event time (CPU rows: wall "
      "clock)\n\n"
      "Texels: the storage and interpolation of the kernel that ran. Total: one backprojection "
      "of all " +
      std::to_string(scanViews) + " views, min / median / max of " + std::to_string(o.repeats) +
      " runs after a warm-up; GUPS from the median. Ceiling: interpolated samples per second of "
      "the kernel's texel format and fetch path, from reference/gpu-limits-h100.md Table 1 "
      "(measured 2026-11-23 on an H100, 132 SMs at 1980 MHz; scaled by SM count for another "
      "device; the software rows' ceilings are loop rates, not unit limits); one voxel update "
      "needs one sample. rel. L2 err: at " +
      std::to_string(o.samples) +
      " sampled voxels against a float64 reference of the same backprojection, on zero-mean "
      "uniform [-1, 1) projections (like filtered data) and on the positive line integrals of "
      "the modified Shepp-Logan phantom (unfiltered). NRMSE whole FDK: the whole FDK of the "
      "phantom (GPU filtering included) against fdk.bp.cpu-f64, at --phantom-sizes only. "
      "Speed-Up: median over the previous row's median.\n\n" +
      kernelTableHeader());
  for (const std::int64_t size : o.sizes) {
    const std::vector<KernelRow> rows = kernelRowsForSize(ctx, size);
    for (const KernelRow& r : rows) {
      ctx.report["kernel"].push_back(toJson(ctx, r));
      ctx.kernelRows.push_back(r);
    }
    writer.add(kernelTableRows(ctx, rows));
    writer.save(ctx.report);
  }
  writer.add(headline(ctx));
  writer.add(citedPeers());
}

void endToEndSection(Context& ctx, ReportWriter& writer) {
  const Options& o = ctx.options;
  std::ostringstream md;
  md << "\n### End to end: host projections (pinned: "
     << (isPinnedHostBuffer(ctx.phantom.data()) ? "yes" : "no")
     << ") -> weighting, ramp filter, backprojection -> host volume (reconstructFdk)\n\n"
     << "Wall: reconstructFdk's totalSeconds, min / median / max of " << o.repeats
     << " runs after a warm-up; the stage columns are the median run's. What overlaps (issue #22): "
        "three streams run three chunks at once, one uploading, one being weighted, filtered "
        "and converted, one being backprojected; the host volume is allocated on its own "
        "thread beside them, and the first download waits for it (Waited for it). So Waited + "
        "Backproject + Download not hidden + Rest = Wall (a task's last chunk is backprojected "
        "in four pieces of rows, each downloaded while the next runs, so only the last "
        "piece's download is not hidden), where Rest is the time in none of these "
        "(planning, device buffers, the first chunk's upload and filtering that nothing hides: "
        "8 views, then chunks doubling up to the plan's, "
        "launch gaps, filtering that outran the backprojection). Host volume alloc, Filter and "
        "Upload overlap and are not in that sum; Every stage summed minus Wall is what the "
        "overlap saves. H2D floor: the bytes uploaded at "
     << fixed(bench::kH100PinnedH2DGBs, 0)
     << " GB/s, the pinned copy rate of reference/gpu-limits-h100.md (the end-to-end ceiling "
        "when every copy is hidden). GUPS backprojection in the pipeline: the per-chunk kernel "
        "events summed; GUPS kernel only: the kernel table's median for the same variant and "
        "size (one launch sequence; the cross-check below compares the two).\n\n";
  std::vector<EndToEndRow> rows;
  std::ostringstream failures;
  for (const std::int64_t size : o.sizes) {
    for (const std::string& name : o.endToEndVariants) {
      try {
        rows.push_back(endToEnd(ctx, size, fullName(name)));
        const EndToEndRow& r = rows.back();
        progress("end to end L=" + std::to_string(size) + " " + r.variant + ": " +
                 fixed(r.wall.median, 3) + " s (median)");
        ctx.report["endToEnd"].push_back(toJson(r));
        writer.save(ctx.report);
      } catch (const std::exception& e) {
        failures << "- " << fullName(name) << " at " << size << "³ failed: " << e.what() << "\n";
        progress(failures.str());
      }
    }
  }
  md << endToEndTable(rows) << failures.str();
  for (const EndToEndRow& r : rows)
    if (!r.plan.empty())
      md << "\n- " << r.variant << " " << r.size << "³: " << r.plan << "; in Rest: host set-up "
         << fixed(r.report.hostSetupSeconds, 3) << " s (weights, matrices, plan), device set-up "
         << fixed(r.report.deviceSetupSeconds, 3)
         << " s (buffers, cuFFT plans, the slowest device), the first chunk's upload and filter "
         << fixed(r.report.firstChunkSeconds, 3) << " s, the tasks' kernel inputs "
         << fixed(r.report.inputsSeconds, 3) << " s, the device threads' ends (buffers freed) "
         << fixed(r.report.teardownSeconds, 3) << " s";
  md << "\n";
  writer.add(md.str());
}

void multiGpuSection(Context& ctx, std::size_t gpuCount, ReportWriter& writer) {
  const Options& o = ctx.options;
  std::ostringstream md;
  if (!o.multiGpu || gpuCount < 2 || o.endToEndVariants.empty()) {
    md << "\nOne GPU against two: skipped (" << gpuCount << " GPU visible"
       << (o.multiGpu ? "" : ", --no-multi-gpu") << ").\n";
    writer.add(md.str());
    return;
  }
  const std::string variant = fullName(o.endToEndVariants.front());
  md << "\n### One GPU against two (end to end, " << variant << ")\n\n"
     << "Wall times only: with two GPUs the stages run side by side on both, so per-stage sums "
        "would not add up to the wall time and are not shown. Kept volume: the same runs into "
        "the warm-up run's volume (fdk::reconstructFdkInto, as a batch of scans on one grid "
        "would), which skips allocating and pinning the host volume.\n\n";
  std::vector<MultiGpuRow> rows;
  std::ostringstream failures;
  for (const std::int64_t size : o.sizes) {
    try {
      rows.push_back(multiGpu(ctx, size, variant));
      const MultiGpuRow& r = rows.back();
      progress("multi-GPU L=" + std::to_string(size) + ": " + fixed(r.oneGpu.median, 3) + " s -> " +
               fixed(r.twoGpus.median, 3) + " s; kept volume " + fixed(r.oneGpuReused.median, 3) +
               " s -> " + fixed(r.twoGpusReused.median, 3) + " s");
      ctx.report["multiGpu"].push_back({{"variant", r.variant},
                                        {"size", r.size},
                                        {"oneGpuSeconds", toJson(r.oneGpu)},
                                        {"twoGpuSeconds", toJson(r.twoGpus)},
                                        {"oneGpuKeptVolumeSeconds", toJson(r.oneGpuReused)},
                                        {"twoGpuKeptVolumeSeconds", toJson(r.twoGpusReused)},
                                        {"keptVolumeSameAsFresh", r.reusedSameAsFresh},
                                        {"maxAbsDifference", r.maxAbsDifference}});
      writer.save(ctx.report);
    } catch (const std::exception& e) {
      failures << "- " << size << "³ failed: " << e.what() << "\n";
    }
  }
  md << multiGpuTable(rows) << failures.str();
  writer.add(md.str());
}

bool onlyCpuVariants(const Options& o) {
  for (const std::string& v : o.variants)
    if (VariantRegistry::builtins().require(splitVariant(fullName(v)).first).needsGpu) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  CLI::App app{"GPU FDK benchmark, seed 000's Table I layout (RabbitCT-like geometry)"};
  Context ctx;
  Options& o = ctx.options;
  app.add_option("--sizes", o.sizes, "cubic volume edges L")->capture_default_str();
  app.add_option("--variants", o.variants, "kernel variants, table order (fdk.bp. optional)")
      ->capture_default_str();
  app.add_option("--e2e-variants", o.endToEndVariants, "variants for the end-to-end rows")
      ->capture_default_str();
  app.add_option("--phantom-sizes", o.phantomSizes,
                 "sizes with the whole-FDK Shepp-Logan NRMSE against fdk.bp.cpu-f64 (CPU cost: "
                 "seconds at 256, minutes at 512)")
      ->capture_default_str();
  app.add_option("--slow-variants", o.slowVariants, "variants skipped above --slow-max-size")
      ->capture_default_str();
  app.add_option("--slow-max-size", o.slowMaxSize, "largest L at which slow variants run")
      ->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed runs per case after a warm-up (at least 5)")
      ->capture_default_str()
      ->check(CLI::Range(bench::kMinTimedRuns, 1000));
  app.add_option("--samples", o.samples, "voxels sampled for the errors against float64")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--device", o.device, "CUDA device for the single-GPU rows")
      ->capture_default_str();
  app.add_flag("!--no-multi-gpu", o.multiGpu, "skip the one- versus two-GPU rows");
  app.add_flag("!--no-cross-check", o.crossCheck,
               "skip timing the cross-check variants three ways");
  app.add_option("--cross-check-variants", o.crossCheckVariants,
                 "variants timed three ways (all views / chunks / in the pipeline)")
      ->capture_default_str();
  app.add_option("--cross-check-size", o.crossCheckSize, "L of the RabbitCT-like cross-check")
      ->capture_default_str();
  app.add_option("--chunk-views", o.chunkViews, "views per chunk in the cross-check's (b)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--views", scanViews,
                 "views of the RabbitCT-like scan over 360 degrees (496 is RabbitCT's; fewer for "
                 "a quick check of the program)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_flag("--kernel-only", o.kernelOnly,
               "only the kernel rows, without the Shepp-Logan errors (quick; for profilers)");
  app.add_option("--out", o.out, "append the Markdown report to this file");
  app.add_option("--json", o.jsonPath, "write the figures as JSON");
  app.add_option("--rabbitct", o.rabbitct, "a RabbitCT projection file to time as well");
  CLI11_PARSE(app, argc, argv);

  try {
    const auto benchStart = Clock::now();
    const std::vector<cuda::GpuDevice> devices = cuda::listGpuDevices();
    const std::string command = bench::commandLine(argc, argv);
    const bool haveDevice = o.device >= 0 && o.device < static_cast<int>(devices.size());
    if (haveDevice) {
      const cuda::GpuDevice& d = devices[static_cast<std::size_t>(o.device)];
      ctx.deviceName = d.name;
      ctx.multiprocessors = d.multiprocessors;
    } else {
      ctx.deviceName = "no CUDA device (" + cuda::gpuStatus() + ")";
    }
    // Without a GPU only CPU variants can run (a check of the program itself, not a benchmark
    // of the GPU): no end-to-end, cross-check or multi-GPU parts then.
    const bool cpuOnly = !haveDevice && onlyCpuVariants(o);
    std::ostringstream md;
    md << "\n## " << bench::utcNow() << ": GPU FDK, seed 000 Table I layout\n\n"
       << "Device: " << ctx.deviceName << " (" << devices.size() << " visible GPU"
       << (devices.size() == 1 ? "" : "s") << ", " << ctx.multiprocessors << " SMs), host "
       << omp_get_num_procs() << " CPUs.\n"
       << "Command: `" << command << "`\n\n"
       << "Geometry: " << scanViews << " views over 360°, flat detector 1248 x 960 of 0.6 mm, "
       << "source-isocentre 750 mm, source-detector 1250 mm, 256 mm cube at the isocentre "
       << "(voxel 256/L mm). GUPS = L³·" << scanViews
       << " / time. Every time: min / median / max of " << o.repeats << " runs after a warm-up.\n";
    ReportWriter writer(o);
    writer.add(md.str());
    ctx.report = {{"date", bench::utcNow()},
                  {"device", ctx.deviceName},
                  {"multiprocessors", ctx.multiprocessors},
                  {"gpuCount", devices.size()},
                  {"command", command},
                  {"views", scanViews},
                  {"repeats", o.repeats}};
    if (!haveDevice && !cpuOnly) {
      writer.add("\nNo CUDA device: nothing to measure (only CPU variants run without one).\n");
    } else {
      const Geometry geometry = circularConeBeam(rabbitLikeScan());
      auto start = Clock::now();
      ctx.random = ProjectionStack(geometry);
      bench::fillZeroMeanRandom(ctx.random);
      progress("random projections (" + formatBytes(ctx.random.pixelCount() * 4) +
               ", pinned: " + (isPinnedHostBuffer(ctx.random.data()) ? "yes" : "no") + ") in " +
               fixed(secondsSince(start), 1) + " s");
      if (!o.kernelOnly) {
        start = Clock::now();
        ctx.phantom =
            phantom::projectPhantom(phantom::modifiedSheppLogan3d(kPhantomScaleMm), geometry);
        progress("Shepp-Logan projections (pinned: " +
                 std::string(isPinnedHostBuffer(ctx.phantom.data()) ? "yes" : "no") + ") in " +
                 fixed(secondsSince(start), 1) + " s");
      }
      kernelSection(ctx, writer);
      if (!o.kernelOnly && !cpuOnly) {
        endToEndSection(ctx, writer);
        if (o.crossCheck) crossCheckSection(ctx, writer);
        multiGpuSection(ctx, devices.size(), writer);
      }
      ctx.random = ProjectionStack();
      ctx.phantom = ProjectionStack();
      if (!o.rabbitct.empty()) writer.add(rabbitCtSection(ctx));
    }
    writer.add("\nBenchmark wall time: " + fixed(secondsSince(benchStart), 1) + " s.\n");
    ctx.report["wallSeconds"] = secondsSince(benchStart);
    writer.save(ctx.report);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tomowb-bench-fdk-gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}
