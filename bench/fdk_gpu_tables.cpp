// fdk_gpu_tables.cpp: how tomowb-bench-fdk-gpu writes its rows: the kernel, end-to-end and
// multi-GPU Markdown tables, the headline of the fastest kernels, and the rows as JSON.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "bench/fdk_gpu_internal.h"

namespace fdk_gpu {

// ---- output ---------------------------------------------------------------------------------

std::string kernelTableHeader() {
  std::ostringstream t;
  t << "| Configuration | Texels | Volume | Runs | Total (ms) min / median / max | Mean per view "
       "(ms) | GUPS (1e9) | GUPS (2^30) | Ceiling (G samples/s) | Fraction of ceiling | rel. L2 "
       "err, random zero-mean | rel. L2 err, Shepp-Logan (positive) | NRMSE whole FDK vs "
       "cpu-f64 | Speed-Up |\n"
    << "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  return t.str();
}

std::string kernelTableRows(const Context& ctx, const std::vector<KernelRow>& rows) {
  std::ostringstream t;
  for (const KernelRow& r : rows) {
    t << "| " << r.variant << (r.note.empty() || r.skipped ? "" : " (" + r.note + ")") << " | ";
    if (r.skipped) {
      t << " | " << r.size << "³ | " << r.note << " | | | | | | | | | | |\n";
      continue;
    }
    const double u = updates(r.size);
    const double ceiling = ceilingFor(ctx, r.kernel);
    const double gups = gupsOf(u, r.seconds.median);
    t << bench::fdkTexelFormat(r.kernel) << " | " << r.size << "³ | " << r.seconds.runs << " | "
      << bench::minMedianMax(r.seconds, 1e3, 2) << " | "
      << fixed(r.seconds.median / double(scanViews) * 1e3, 3) << " | " << fixed(gups, 1) << " | "
      << fixed(u / r.seconds.median / double(1u << 30), 1) << " | "
      << (std::isfinite(ceiling) ? fixed(ceiling, 0) : "n/a") << " | "
      << bench::fractionOfCeiling(gups, ceiling) << " | " << scientific(r.relativeL2Random) << " | "
      << scientific(r.relativeL2Positive) << " | "
      << (r.sheppLoganNrmse ? scientific(*r.sheppLoganNrmse) : "–") << " | "
      << (std::isfinite(r.speedUp) ? fixed(r.speedUp, 2) : "N/A") << " |\n";
  }
  return t.str();
}

// The headline: at the largest size measured, the fastest kernel, the fastest with float32
// texels or buffers and the fastest software-interpolation kernel, each with its texel format.
std::string headline(const Context& ctx) {
  std::int64_t size = 0;
  for (const KernelRow& r : ctx.kernelRows)
    if (!r.skipped) size = std::max(size, r.size);
  if (size == 0) return "";
  auto best = [&](auto&& keep) -> const KernelRow* {
    const KernelRow* found = nullptr;
    for (const KernelRow& r : ctx.kernelRows)
      if (!r.skipped && r.size == size && keep(r) &&
          (!found || r.seconds.median < found->seconds.median))
        found = &r;
    return found;
  };
  auto describe = [&](const char* label, const KernelRow* r) -> std::string {
    if (!r) return std::string("- ") + label + ": none ran\n";
    const double gups = gupsOf(updates(size), r->seconds.median);
    const double ceiling = ceilingFor(ctx, r->kernel);
    std::string line =
        std::string("- ") + label + ": **" + r->variant +
        (r->kernel != splitVariant(r->variant).first ? " (ran " + r->kernel + ")" : "") + ", " +
        bench::fdkTexelFormat(r->kernel) + "**: " + fixed(gups, 1) +
        " GUPS kernel only (median of " + std::to_string(r->seconds.runs) + "; " +
        fixed(gupsOf(updates(size), r->seconds.max), 1) + " to " +
        fixed(gupsOf(updates(size), r->seconds.min), 1) + ")";
    if (std::isfinite(ceiling))
      line += ", of its ceiling " + bench::fractionOfCeiling(gups, ceiling);
    return line + "; rel. L2 error " + scientific(r->relativeL2Random) + " on zero-mean data, " +
           scientific(r->relativeL2Positive) + " on the Shepp-Logan line integrals.\n";
  };
  auto isFloat32 = [](const KernelRow& r) {
    return r.kernel != "fdk.bp.mirror-half2" && r.kernel != "fdk.bp.soft-mirror-half" &&
           r.kernel != "fdk.bp.mirror-hybrid" && r.kernel.rfind("fdk.bp.cpu", 0) != 0;
  };
  auto isSoftware = [&](const KernelRow& r) {
    return isFloat32(r) && (r.kernel == "fdk.bp.naive" || r.kernel == "fdk.bp.soft" ||
                            r.kernel == "fdk.bp.soft-mirror");
  };
  std::ostringstream t;
  t << "\n**Headline, " << size << "³ x " << scanViews << " views, " << ctx.deviceName << ":**\n\n"
    << describe("fastest", best([](const KernelRow&) { return true; }))
    << describe("fastest with float32 data", best(isFloat32))
    << describe("fastest with software (float32) interpolation", best(isSoftware));
  return t.str();
}

std::string endToEndTable(const std::vector<EndToEndRow>& rows) {
  std::ostringstream t;
  t << "| Variant (kernel) | Texels | Volume | Runs | Wall (s) min / median / max | Host volume "
       "alloc (s), beside the GPU | Waited for it (s) | Filter (s), overlapped | Backproject (s) "
       "| Download not hidden (s) | Rest (s) | Upload (s, GB/s), overlapped | Every stage summed "
       "(s) | H2D "
       "floor (s) | Fraction of H2D floor | GUPS end to end | GUPS backprojection in the "
       "pipeline | GUPS kernel only (table above) |\n"
    << "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const EndToEndRow& r : rows) {
    const fdk::FdkReport& p = r.report;
    const bench::StageBreakdown& s = r.stages;
    const double floor = p.uploadBytes / (bench::kH100PinnedH2DGBs * 1e9);
    t << "| " << r.variant << (r.kernel == r.variant ? "" : " (" + r.kernel + ")") << " | "
      << bench::fdkTexelFormat(r.kernel) << " | " << r.size << "³ | " << r.wall.runs << " | "
      << bench::minMedianMax(r.wall, 1.0, 3) << " | " << fixed(s.hostAlloc, 3) << " | "
      << fixed(s.hostWait, 3) << " | " << fixed(s.filter, 3) << " | " << fixed(s.backproject, 3)
      << " | " << fixed(s.download, 3) << " | " << fixed(s.rest(), 3) << " | " << fixed(s.upload, 3)
      << ", " << (s.upload > 0 ? fixed(p.uploadBytes / s.upload / 1e9, 1) : "–") << " | "
      << fixed(s.allStages(), 3) << " | " << fixed(floor, 3) << " | "
      << fixed(100.0 * floor / s.wall, 0) << " % | " << fixed(gupsOf(updates(r.size), s.wall), 1)
      << " | " << fixed(p.backprojectGups(), 1) << " | " << fixed(r.kernelOnlyGups, 1) << " |\n";
  }
  return t.str();
}

std::string multiGpuTable(const std::vector<MultiGpuRow>& rows) {
  std::ostringstream t;
  t << "| Variant | Volume | Runs | 1 GPU wall (s) min / median / max | 2 GPUs wall (s) min / "
       "median / max | Speed-Up (medians) | max abs difference | 2 GPUs, median run: plan | host "
       "volume alloc (s), beside | waited for it (s) | download (s, both GPUs summed) | "
       "backproject (s, summed) | kernel inputs built (s) | threads' ends (s) | 1 GPU into a kept "
       "volume (s) min / median / max | 2 GPUs into a kept volume (s) min / median / max | "
       "Speed-Up, kept volume (medians) | kept volume = fresh, bit for bit |\n"
    << "|---|---|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|---:|---|\n";
  for (const MultiGpuRow& r : rows) {
    const fdk::FdkReport& two = r.twoReport;
    t << "| " << r.variant << " | " << r.size << "³ | " << r.oneGpu.runs << " | "
      << bench::minMedianMax(r.oneGpu, 1.0, 3) << " | " << bench::minMedianMax(r.twoGpus, 1.0, 3)
      << " | " << fixed(r.oneGpu.median / r.twoGpus.median, 2) << " | "
      << scientific(r.maxAbsDifference) << " | " << two.plan << " | "
      << fixed(two.hostVolumeSeconds, 3) << " | " << fixed(two.hostVolumeWaitSeconds, 3) << " | "
      << fixed(two.downloadSeconds, 3) << " | " << fixed(two.backprojectSeconds, 3) << " | "
      << fixed(two.inputsSeconds, 3) << " | " << fixed(two.teardownSeconds, 3) << " | "
      << bench::minMedianMax(r.oneGpuReused, 1.0, 3) << " | "
      << bench::minMedianMax(r.twoGpusReused, 1.0, 3) << " | "
      << fixed(r.oneGpuReused.median / r.twoGpusReused.median, 2) << " | "
      << (r.reusedSameAsFresh ? "yes" : "NO") << " |\n";
  }
  return t.str();
}

json toJson(const Context& ctx, const KernelRow& r) {
  json j{{"variant", r.variant}, {"kernel", r.kernel}, {"size", r.size}, {"skipped", r.skipped}};
  if (!r.note.empty()) j["note"] = r.note;
  if (r.skipped) return j;
  const double u = updates(r.size);
  j["texels"] = bench::fdkTexelFormat(r.kernel);
  j["seconds"] = toJson(r.seconds);
  j["meanMsPerView"] = r.seconds.median / double(scanViews) * 1e3;
  j["gups1e9"] = u / r.seconds.median / 1e9;
  j["gups2pow30"] = u / r.seconds.median / double(1u << 30);
  const double ceiling = ceilingFor(ctx, r.kernel);
  if (std::isfinite(ceiling)) {
    j["ceilingGSamplesPerSecond"] = ceiling;
    j["ceilingSource"] = bench::fdkKernelCeiling(r.kernel)->source;
    j["fractionOfCeiling"] = u / r.seconds.median / 1e9 / ceiling;
  }
  j["relativeL2Random"] = r.relativeL2Random;
  if (std::isfinite(r.relativeL2Positive)) j["relativeL2SheppLogan"] = r.relativeL2Positive;
  j["uploadSeconds"] = r.uploadSeconds;
  if (r.sheppLoganNrmse) j["nrmseWholeFdkSheppLogan"] = *r.sheppLoganNrmse;
  if (std::isfinite(r.speedUp)) j["speedUpOverPrevious"] = r.speedUp;
  return j;
}

json toJson(const EndToEndRow& r) {
  const fdk::FdkReport& p = r.report;
  const bench::StageBreakdown& s = r.stages;
  return {{"variant", r.variant},
          {"kernel", r.kernel},
          {"size", r.size},
          {"plan", r.plan},
          {"device", p.device},
          {"wallSeconds", toJson(r.wall)},
          {"medianRun",
           {{"wallSeconds", s.wall},
            {"hostVolumeAllocationSeconds", s.hostAlloc},
            {"hostVolumeWaitSeconds", s.hostWait},
            {"filterSeconds", s.filter},
            {"backprojectSeconds", s.backproject},
            {"downloadSeconds", s.download},
            {"restSeconds", s.rest()},
            {"uploadSecondsOverlapped", s.upload},
            {"uploadBytes", p.uploadBytes},
            {"downloadBytes", p.downloadBytes}}},
          {"gupsEndToEnd", updates(r.size) / s.wall / 1e9},
          {"gupsBackprojectionInPipeline", p.backprojectGups()},
          {"gupsKernelOnly", std::isfinite(r.kernelOnlyGups) ? json(r.kernelOnlyGups) : json()},
          {"inputPinned", r.inputPinned}};
}

}  // namespace fdk_gpu
