#include "recon/pet/Deposition.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numbers>

#include "recon/core/Error.h"

namespace tomowb::pet {

std::string toString(DepositionMode mode) {
  switch (mode) {
    case DepositionMode::Nearest:
      return "nearest";
    case DepositionMode::Trilinear:
      return "trilinear";
    case DepositionMode::TofKernel:
      return "tof-kernel";
  }
  return "?";
}

DepositionMode parseDepositionMode(std::string_view text, std::string_view parameter) {
  for (DepositionMode m :
       {DepositionMode::Nearest, DepositionMode::Trilinear, DepositionMode::TofKernel})
    if (text == toString(m)) return m;
  throw ParameterError(
      parameter,
      "'" + std::string(text) + "' is not a deposition mode (nearest, trilinear, tof-kernel)");
}

double tofSigmaFactor(DepositionMode mode) {
  return mode == DepositionMode::TofKernel ? std::numbers::sqrt2 : 1.0;
}

EventGeometryTableSet::EventGeometryTableSet(const ScannerModel& scanner, const VolumeGrid& grid,
                                             const ViewBinning& views) {
  scanner.validate();
  views.validate();
  for (const Eigen::Vector2d& p : scanner.crystalPositionsXy()) {
    crystalX_.push_back(static_cast<float>(p.x()));
    crystalY_.push_back(static_cast<float>(p.y()));
  }
  for (int r = 0; r < scanner.rings; ++r) ringZ_.push_back(static_cast<float>(scanner.ringZ(r)));
  for (int k = 0; k < views.azimuths; ++k) {
    const double phi = k * views.azimuthStepRad();
    azimuthCos_.push_back(static_cast<float>(std::cos(phi)));
    azimuthSin_.push_back(static_cast<float>(std::sin(phi)));
  }
  for (int k = 0; k <= views.tilts; ++k)
    tiltEdgeSin_.push_back(
        static_cast<float>(std::sin(-views.maxTiltRad + k * views.tiltStepRad())));
  EventGeometryTables& t = tables_;
  t.crystalX = crystalX_.data();
  t.crystalY = crystalY_.data();
  t.ringZ = ringZ_.data();
  t.azimuthCos = azimuthCos_.data();
  t.azimuthSin = azimuthSin_.data();
  t.tiltEdgeSin = tiltEdgeSin_.data();
  t.crystalsPerRing = scanner.crystalsPerRing;
  t.rings = scanner.rings;
  t.azimuths = views.azimuths;
  t.tilts = views.tilts;
  t.halfCTimesLsbMm = static_cast<float>(0.5 * kSpeedOfLightMmPerPs * scanner.tofLsbPs);
  for (int a = 0; a < 3; ++a) {
    t.originMm[a] = static_cast<float>(grid.originMm[a]);
    t.inverseVoxelMm[a] = static_cast<float>(1.0 / grid.voxelSizeMm[a]);
  }
  t.nx = grid.shape.nx;
  t.ny = grid.shape.ny;
  t.nz = grid.shape.nz;
}

namespace {

bool inStream(const ListModeEvent& e, EventStream stream) {
  const bool delayed = (e.flags & kEventDelayed) != 0;
  return stream == EventStream::Delayed ? delayed : !delayed;
}

void addTrilinear(const EventGeometryTables& t, float x, float y, float z, float weight,
                  std::vector<VoxelWeight>& out) {
  const double f[3] = {(x - t.originMm[0]) * double(t.inverseVoxelMm[0]),
                       (y - t.originMm[1]) * double(t.inverseVoxelMm[1]),
                       (z - t.originMm[2]) * double(t.inverseVoxelMm[2])};
  std::int64_t base[3];
  double frac[3];
  const std::int64_t n[3] = {t.nx, t.ny, t.nz};
  for (int a = 0; a < 3; ++a) {
    if (!(f[a] > -1.0 && f[a] < double(n[a]))) return;
    const double fl = std::floor(f[a]);
    base[a] = static_cast<std::int64_t>(fl);
    frac[a] = f[a] - fl;
  }
  for (int corner = 0; corner < 8; ++corner) {
    std::int64_t idx[3];
    double w = weight;
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      const int step = (corner >> a) & 1;
      idx[a] = base[a] + step;
      w *= step ? frac[a] : 1.0 - frac[a];
      inside = inside && idx[a] >= 0 && idx[a] < n[a];
    }
    if (inside && w > 0)
      out.push_back({(idx[2] * t.ny + idx[1]) * t.nx + idx[0], static_cast<float>(w)});
  }
}

}  // namespace

void spreadEvent(const EventGeometryTables& t, const EventPoint& e, DepositionMode mode,
                 double tofSigmaMm, double tofKernelSigmas, std::vector<VoxelWeight>& out) {
  out.clear();
  if (e.view < 0) return;
  switch (mode) {
    case DepositionMode::Nearest: {
      const std::int64_t v = nearestVoxel(t, e.x, e.y, e.z);
      if (v >= 0) out.push_back({v, 1.0f});
      return;
    }
    case DepositionMode::Trilinear:
      addTrilinear(t, e.x, e.y, e.z, 1.0f, out);
      return;
    case DepositionMode::TofKernel: {
      const double step =
          0.5 / std::max({t.inverseVoxelMm[0], t.inverseVoxelMm[1], t.inverseVoxelMm[2]});
      const int half = static_cast<int>(std::ceil(tofKernelSigmas * tofSigmaMm / step));
      double norm = 0;
      for (int k = -half; k <= half; ++k) {
        const double s = k * step;
        norm += std::exp(-0.5 * s * s / (tofSigmaMm * tofSigmaMm));
      }
      for (int k = -half; k <= half; ++k) {
        const double s = k * step;
        const double w = std::exp(-0.5 * s * s / (tofSigmaMm * tofSigmaMm)) / norm;
        addTrilinear(t, static_cast<float>(e.x + s * e.ux), static_cast<float>(e.y + s * e.uy),
                     static_cast<float>(e.z + s * e.uz), static_cast<float>(w), out);
      }
      return;
    }
  }
}

namespace {

// Pass 1: each event's view (-1 outside the tilt acceptance, -2 degenerate, -3 another stream),
// in parallel, counted into the report.
std::vector<std::int32_t> classifyEvents(const EventGeometryTables& t,
                                         std::span<const ListModeEvent> events, EventStream stream,
                                         DepositionReport& report, JobContext& context) {
  const auto n = static_cast<std::int64_t>(events.size());
  std::vector<std::int32_t> viewOf(static_cast<std::size_t>(n), -3);
  std::uint64_t inStreamCount = 0, outsideTilt = 0, degenerate = 0;
  constexpr std::int64_t kBatch = std::int64_t{1} << 22;
  for (std::int64_t begin = 0; begin < n; begin += kBatch) {
    context.throwIfCancelled();
    const std::int64_t end = std::min(n, begin + kBatch);
#pragma omp parallel for reduction(+ : inStreamCount, outsideTilt, degenerate) schedule(static)
    for (std::int64_t i = begin; i < end; ++i) {
      const ListModeEvent& ev = events[static_cast<std::size_t>(i)];
      if (!inStream(ev, stream)) continue;
      ++inStreamCount;
      std::int32_t& v = viewOf[static_cast<std::size_t>(i)];
      if (ev.crystal1 == ev.crystal2 && ev.ring1 == ev.ring2) {
        ++degenerate;
        v = -2;
        continue;
      }
      v = locateEvent(t, ev.crystal1, ev.ring1, ev.crystal2, ev.ring2, ev.tofLsb).view;
      if (v < 0) ++outsideTilt;
    }
    context.reportProgress("deposit", 0.3 * double(end) / double(std::max<std::int64_t>(n, 1)));
  }
  report.events = inStreamCount;
  report.outsideTilt = outsideTilt;
  report.degenerate = degenerate;
  return viewOf;
}

// Pass 2: the events of each view in event order (a counting sort): start[v]..start[v + 1] of
// `order` are view v's event indices.
void bucketByView(const std::vector<std::int32_t>& viewOf, int views,
                  std::vector<std::int64_t>& start, std::vector<std::int64_t>& order) {
  start.assign(static_cast<std::size_t>(views) + 1, 0);
  for (std::int32_t v : viewOf)
    if (v >= 0) ++start[static_cast<std::size_t>(v) + 1];
  for (int v = 0; v < views; ++v) start[v + 1] += start[v];
  order.assign(static_cast<std::size_t>(start[views]), 0);
  std::vector<std::int64_t> next(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < viewOf.size(); ++i) {
    const std::int32_t v = viewOf[i];
    if (v >= 0) order[static_cast<std::size_t>(next[v]++)] = static_cast<std::int64_t>(i);
  }
}

}  // namespace

DepositionReport depositEvents(const ScannerModel& scanner, std::span<const ListModeEvent> events,
                               const DepositionParams& params, HistoImages& histo,
                               JobContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const EventGeometryTableSet tableSet(scanner, histo.grid(), histo.views());
  const EventGeometryTables& t = tableSet.tables();
  DepositionReport report;
  report.device = "CPU, " + std::to_string(omp_get_max_threads()) + " threads";
  const std::vector<std::int32_t> viewOf =
      classifyEvents(t, events, params.stream, report, context);

  // Pass 3: each thread owns whole views, so every view's sum is made in the same order whatever
  // the thread count.
  const int views = histo.viewCount();
  std::vector<std::int64_t> start, order;
  bucketByView(viewOf, views, start, order);
  const double tofSigmaMm = scanner.tofSigmaMm();
  std::uint64_t deposited = 0, outsideGrid = 0;
  std::atomic<bool> cancelled{false};
#pragma omp parallel reduction(+ : deposited, outsideGrid)
  {
    std::vector<VoxelWeight> spread;
#pragma omp for schedule(dynamic, 1)
    for (int v = 0; v < views; ++v) {
      if (cancelled) continue;
      float* out = histo.view(v).data();
      for (std::int64_t k = start[v]; k < start[v + 1]; ++k) {
        const ListModeEvent& ev =
            events[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])];
        const EventPoint p =
            locateEvent(t, ev.crystal1, ev.ring1, ev.crystal2, ev.ring2, ev.tofLsb);
        spreadEvent(t, p, params.mode, tofSigmaMm, params.tofKernelSigmas, spread);
        if (spread.empty()) {
          ++outsideGrid;
          continue;
        }
        ++deposited;
        for (const VoxelWeight& w : spread) out[w.voxel] += w.weight;
      }
      if (omp_get_thread_num() == 0) {
        if (context.cancelToken().requested()) cancelled = true;
        context.reportProgress("deposit", 0.3 + 0.7 * double(v + 1) / views);
      }
    }
  }
  if (cancelled) throw Cancelled();
  report.deposited = deposited;
  report.outsideGrid = outsideGrid;
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace tomowb::pet
