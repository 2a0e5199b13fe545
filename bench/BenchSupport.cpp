#include "bench/BenchSupport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>
#include <sstream>

#include "recon/core/Error.h"

namespace tomowb::bench {

RunStats summarize(std::vector<double> seconds) {
  if (seconds.empty()) throw ParameterError("runs", "no timed run to summarise");
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  RunStats s;
  s.runs = static_cast<int>(n);
  s.min = seconds.front();
  s.max = seconds.back();
  s.median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  return s;
}

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) return "n/a";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string fractionOfCeiling(double rate, double ceiling) {
  if (!std::isfinite(ceiling) || ceiling <= 0 || !std::isfinite(rate)) return "n/a";
  const double f = rate / ceiling;
  if (f <= 1.0) return fixed(100.0 * f, 0) + " %";
  return "above: " + fixed(100.0 * f, 0) + " %, the cited rate is no bound here";
}

std::string scientific(double value) {
  if (!std::isfinite(value)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

std::string minMedianMax(const RunStats& stats, double scale, int digits) {
  return fixed(stats.min * scale, digits) + " / " + fixed(stats.median * scale, digits) + " / " +
         fixed(stats.max * scale, digits);
}

std::string utcNow(const char* format) {
  const std::time_t now = std::time(nullptr);
  char text[64];
  std::strftime(text, sizeof text, format, std::gmtime(&now));
  return text;
}

std::string commandLine(int argc, char** argv) {
  std::string command;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) command += ' ';
    command += argv[i];
  }
  return command;
}

// ---- reference
// ------------------------------------------------------------------------------------

std::vector<VoxelSample> sampleVoxels(const VolumeShape& shape, int count, std::uint64_t seed) {
  if (shape.nx <= 0 || shape.ny <= 0 || shape.nz <= 0)
    throw ParameterError("volume", "empty volume: nothing to sample");
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + std::uint64_t(shape.nx) * 7919u +
                      std::uint64_t(shape.ny) * 104729u + std::uint64_t(shape.nz));
  std::uniform_int_distribution<std::int64_t> px(0, shape.nx - 1), py(0, shape.ny - 1),
      pz(0, shape.nz - 1);
  std::vector<VoxelSample> samples{{shape.nx / 2, shape.ny / 2, shape.nz / 2}};
  while (static_cast<int>(samples.size()) < count) samples.push_back({px(rng), py(rng), pz(rng)});
  return samples;
}

std::vector<double> referenceAtSamples(const ProjectionStack& projections, const Volume& grid,
                                       const std::vector<VoxelSample>& samples) {
  const std::int64_t cols = projections.cols(), rows = projections.rows();
  std::vector<ProjectionMatrix> matrices;
  for (std::int64_t view = 0; view < projections.viewCount(); ++view)
    matrices.push_back(projections.geometry().projectionMatrix(view));
  const bool cone = projections.geometry().beam() == BeamKind::Cone;
  std::vector<double> reference(samples.size(), 0.0);
  const auto count = static_cast<std::int64_t>(samples.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t i = 0; i < count; ++i) {
    const VoxelSample& s = samples[static_cast<std::size_t>(i)];
    const Eigen::Vector3d world = grid.worldPosition(double(s.x), double(s.y), double(s.z));
    double sum = 0.0;
    for (std::int64_t view = 0; view < projections.viewCount(); ++view) {
      const Eigen::Vector3d h = matrices[static_cast<std::size_t>(view)] * world.homogeneous();
      const double w = h[2];
      if (!(w > 0)) continue;
      const double col = h[0] / w, row = h[1] / w;
      const double c0 = std::floor(col), r0 = std::floor(row);
      const double tc = col - c0, tr = row - r0;
      auto tap = [&](double c, double r) -> double {
        if (c < 0 || r < 0 || c >= double(cols) || r >= double(rows)) return 0.0;
        return projections.at(view, static_cast<std::int64_t>(r), static_cast<std::int64_t>(c));
      };
      const double top = tap(c0, r0) + tc * (tap(c0 + 1, r0) - tap(c0, r0));
      const double bottom = tap(c0, r0 + 1) + tc * (tap(c0 + 1, r0 + 1) - tap(c0, r0 + 1));
      const double value = top + tr * (bottom - top);
      sum += cone ? value / (w * w) : value;
    }
    reference[static_cast<std::size_t>(i)] = sum;
  }
  return reference;
}

double relativeL2AtSamples(const Volume& volume, const std::vector<VoxelSample>& samples,
                           const std::vector<double>& reference) {
  if (samples.size() != reference.size())
    throw ParameterError("reference", "one reference value per sample expected");
  double difference = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double d = double(volume.at(samples[i].x, samples[i].y, samples[i].z)) - reference[i];
    difference += d * d;
    norm += reference[i] * reference[i];
  }
  return norm > 0 ? std::sqrt(difference / norm) : NAN;
}

void fillZeroMeanRandom(ProjectionStack& stack, std::uint32_t seed) {
  const std::int64_t views = stack.viewCount();
#pragma omp parallel for schedule(static)
  for (std::int64_t view = 0; view < views; ++view) {
    std::mt19937 rng(static_cast<std::uint32_t>(seed + view));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& x : stack.viewPixels(view)) x = uniform(rng);
  }
}

ProjectionStack viewRange(const ProjectionStack& stack, std::int64_t first, std::int64_t count) {
  if (first < 0 || count <= 0 || first + count > stack.viewCount())
    throw ParameterError("views", "range [" + std::to_string(first) + ", " +
                                      std::to_string(first + count) + ") outside the stack of " +
                                      std::to_string(stack.viewCount()) + " views");
  const Geometry& g = stack.geometry();
  std::vector<View> views(g.views().begin() + first, g.views().begin() + first + count);
  ProjectionStack part(Geometry(g.beam(), g.detector(), std::move(views)));
  const std::int64_t pixels = stack.pixelsPerView();
  std::copy(stack.data() + first * pixels, stack.data() + (first + count) * pixels, part.data());
  return part;
}

// ---- ceilings
// -----------------------------------------------------------------------------------------

namespace {

struct KernelFacts {
  const char* texel;
  double ceiling;  // G samples/s on the H100; 0: none
  const char* source;
};

const std::map<std::string, KernelFacts>& kernelFacts() {
  static const std::map<std::string, KernelFacts> facts = {
      {"fdk.bp.naive",
       {"float32 in global memory, software bilinear (4 loads)", 851,
        "Table 1 (e) 4 x __ldg float + FMA (a loop rate, not a unit limit)"}},
      {"fdk.bp.tex",
       {"float32 texels (2-D texture), hardware bilinear", 1040,
        "Table 1 (a) tex2D float32, linear"}},
      {"fdk.bp.tex-multi",
       {"float32 texels (layered texture), hardware bilinear", 1040,
        "Table 1 (a) tex2DLayered float32, linear"}},
      {"fdk.bp.slab",
       {"float32 texels (layered texture), hardware bilinear", 1040,
        "Table 1 (a) tex2DLayered float32, linear"}},
      {"fdk.bp.layered16",
       {"float32 texels (layered texture), hardware bilinear", 1040,
        "Table 1 (a) tex2DLayered float32, linear"}},
      {"fdk.bp.mirror-float2",
       {"float2 texels (rows v and V-1-v), hardware bilinear, 2 samples per fetch", 2079,
        "texture unit peak, 1040 G fetches/s (4 per clock per SM, Table 1 (c2)) x 2 samples; "
        "Table 1 (a2)'s float2 microbenchmark ran at 455 G fetches/s, which this kernel beats"}},
      {"fdk.bp.mirror-half2",
       {"half2 texels (rows v and V-1-v, fp16 storage), hardware bilinear, 2 samples per fetch",
        2079, "Table 1 (c2) tex2D half2, linear: 1040 G fetches/s x 2"}},
      // The hybrids' ceiling is the texture unit's for its share of the views (N - 1 of N,
      // fdk::kMirrorHybridLoadEvery and kHybridLoadEvery): the loads' share is not bounded by
      // it, and no row of the reference measures the two units together.
      {"fdk.bp.mirror-hybrid",
       {"half2 texels (rows v and V-1-v) for 3 views in 4, fp16 pair-major taps with half2 "
        "bilinear (one 16-B load per voxel pair) for the 4th",
        2772,
        "derived: Table 1 (c2) tex2D half2 2079 G samples/s x 4/3 (the texture unit's share is "
        "3 views in 4)"}},
      {"fdk.bp.hybrid",
       {"float32 texels (layered texture), hardware bilinear, for 2 views in 3; float32 quads, "
        "software bilinear (one 16-B load per sample) for the 3rd",
        1560,
        "derived: Table 1 (a) tex2DLayered float32 1040 G samples/s x 3/2 (the texture unit's "
        "share is 2 views in 3)"}},
      {"fdk.bp.soft",
       {"float32 buffer, software bilinear (4 loads + 3 FMA)", 851,
        "Table 1 (e) 4 x __ldg float + FMA (a loop rate, not a unit limit)"}},
      {"fdk.bp.soft-mirror",
       {"float32 pre-expanded quads, software bilinear (one 16-B load per sample)", 883,
        "Table 1 (e) 1 x __ldg float4 quad + FMA (a loop rate, not a unit limit)"}},
      {"fdk.bp.soft-mirror-half",
       {"fp16 quads (16 B = quad of z and of -z), software bilinear, 2 samples per load", 1766,
        "derived: Table 1 (e) 16-B __ldg rate 883 G/s x 2 samples (no row measures it)"}},
      {"fdk.bp.cpu", {"CPU, float32", 0, ""}},
      {"fdk.bp.cpu-f64", {"CPU, float64", 0, ""}},
  };
  return facts;
}

}  // namespace

std::optional<SamplingCeiling> fdkKernelCeiling(const std::string& kernel) {
  const auto it = kernelFacts().find(kernel);
  if (it == kernelFacts().end() || it->second.ceiling <= 0) return std::nullopt;
  return SamplingCeiling{it->second.texel, it->second.ceiling, it->second.source};
}

std::string fdkTexelFormat(const std::string& kernel) {
  const auto it = kernelFacts().find(kernel);
  return it == kernelFacts().end() ? "unknown" : it->second.texel;
}

std::optional<SamplingCeiling> etProjectorCeiling(const std::string& label) {
  if (label.find("software") != std::string::npos || label.find("matched") != std::string::npos)
    return std::nullopt;
  if (label.find("half2 texels") != std::string::npos)
    return SamplingCeiling{"half2 texels (2 slices or rows per texel), hardware linear", 2079,
                           "Table 1 (c2) tex2D half2, linear: 1040 G fetches/s x 2"};
  if (label.find("float2 texels") != std::string::npos)
    return SamplingCeiling{"float2 texels (2 slices or rows per texel), hardware linear", 2079,
                           "texture unit peak, 1040 G fetches/s (4 per clock per SM, Table 1 "
                           "(c2)) x 2 samples; the (a2) float2 microbenchmark's 455 G fetches/s is "
                           "beaten by this kernel"};
  if (label.find("float4 texels") != std::string::npos)
    return SamplingCeiling{"float4 texels (4 slices or rows per texel), hardware linear", 979,
                           "Table 1 (a4) tex2D float4, linear: 245 G fetches/s x 4"};
  if (label.find("tex3D") != std::string::npos)
    return SamplingCeiling{"float32 3-D texture, hardware trilinear", 521,
                           "Table 1 (a) tex3D float32, linear"};
  return SamplingCeiling{"float32 texels, hardware linear", 1040,
                         "Table 1 (a) tex2DLayered float32, linear"};
}

double scaledToDevice(double h100Figure, int multiprocessors) {
  if (multiprocessors <= 0) return h100Figure;
  return h100Figure * double(multiprocessors) / double(kH100Multiprocessors);
}

// ---- cited
// -----------------------------------------------------------------------------------------

std::string citedTable(const std::string& title, const std::vector<CitedFigure>& figures) {
  std::ostringstream t;
  t << "\n#### Cited, not measured by this run: " << title << "\n\n"
    << "| figure | cited value | source | date | device |\n|---|---:|---|---|---|\n";
  for (const CitedFigure& f : figures)
    t << "| " << f.what << " | " << f.value << " | " << f.source << " | " << f.date << " | "
      << f.device << " |\n";
  return t.str();
}

}  // namespace tomowb::bench
