// ListModeSimulator: the CPU list-mode simulator (physics in ListModeSimulator.h; geometry in
// DetectorHits.h and AttenuationPath.h, shared with the CUDA simulator).
#include "recon/pet/ListModeSimulator.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numbers>
#include <numeric>
#include <span>
#include <string>
#include <utility>

#include "recon/core/Error.h"
#include "recon/pet/CounterRng.h"
#include "recon/pet/SimulationSetup.h"

namespace tomowb::pet {

namespace {

using Vec3d = Vec3<double>;

struct ChunkEvents {
  std::vector<ListModeEvent> events;
  std::int64_t decays = 0, trues = 0, randoms = 0, delayed = 0;
};

// The second photon's direction: d turned by two small Gaussian angles about axes normal to it.
Vec3d deviate(Vec3d d, double angle1, double angle2) {
  const Vec3d axis = std::fabs(d.x) < 0.9 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  Vec3d e1{axis.y * d.z - axis.z * d.y, axis.z * d.x - axis.x * d.z, axis.x * d.y - axis.y * d.x};
  e1 = (1.0 / norm(e1)) * e1;
  const Vec3d e2{d.y * e1.z - d.z * e1.y, d.z * e1.x - d.x * e1.z, d.x * e1.y - d.y * e1.x};
  const Vec3d turned = d + angle1 * e1 + angle2 * e2;
  return (1.0 / norm(turned)) * turned;
}

class Simulation {
 public:
  Simulation(const ScannerModel& scanner, const Volume& activity, const Volume* attenuation,
             const ListModeSimulationParams& params)
      : params_(params), setup_(prepareSimulation(scanner, activity, attenuation, params)) {
    const DetectorHitModel& m = setup_.hits;
    crystalXy_.resize(static_cast<std::size_t>(m.crystalsPerRing));
    for (int c = 0; c < m.crystalsPerRing; ++c)
      crystalXy_[std::size_t(c)] = crystalCentre<double>(m, c, 0);
    ringZ_.resize(static_cast<std::size_t>(m.rings));
    for (int r = 0; r < m.rings; ++r) ringZ_[std::size_t(r)] = crystalCentre<double>(m, 0, r).z;
  }

  const SimulationSetup& setup() const noexcept { return setup_; }

  // The events of chunk `chunk`, whose decays are [firstDecay, firstDecay + decays).
  ChunkEvents simulateChunk(std::int64_t chunk, std::int64_t firstDecay,
                            std::int64_t decays) const {
    ChunkEvents out;
    out.decays = decays;
    ListModeEvent event;
    for (std::int64_t i = 0; i < decays; ++i)
      if (decay(firstDecay + i, event)) out.events.push_back(event);
    out.trues = static_cast<std::int64_t>(out.events.size());
    const RandomsCount count =
        sampleRandomsCount(setup_, params_, static_cast<std::uint64_t>(chunk), out.trues);
    out.randoms = count.randoms;
    out.delayed = count.delayed;
    CounterRng randoms(params_.seed, static_cast<std::uint64_t>(chunk), kRandomsSubstream);
    for (std::int64_t i = 0; i < out.randoms; ++i)
      out.events.push_back(randomEvent(randoms, kEventRandom));
    CounterRng delayed(params_.seed, static_cast<std::uint64_t>(chunk), kDelayedSubstream);
    for (std::int64_t i = 0; i < out.delayed; ++i)
      out.events.push_back(randomEvent(delayed, kEventDelayed));
    shuffle(chunk, out.events);
    return out;
  }

 private:
  // One annihilation: true if it gives a recorded coincidence (written to `event`).
  bool decay(std::int64_t index, ListModeEvent& event) const {
    CounterRng rng(params_.seed, static_cast<std::uint64_t>(index), kDecaySubstream);
    const Vec3d x = emissionPoint(rng);
    const double uz = setup_.bandSin * (2 * rng.uniform() - 1);
    const double phi = 2 * std::numbers::pi * rng.uniform();
    const double sinTheta = std::sqrt(std::max(0.0, 1 - uz * uz));
    const Vec3d d1{sinTheta * std::cos(phi), sinTheta * std::sin(phi), uz};
    Vec3d d2 = -1.0 * d1;
    if (setup_.acollinearitySigmaRad > 0) {
      const double a1 = setup_.acollinearitySigmaRad * rng.normal();
      const double a2 = setup_.acollinearitySigmaRad * rng.normal();
      d2 = deviate(d2, a1, a2);
    }
    const DetectorHitModel& m = setup_.hits;
    int module1 = 0, module2 = 0;
    const double s1 = exitDistance(m, x, d1, &module1), s2 = exitDistance(m, x, d2, &module2);
    if (!(s1 > 0) || !(s2 > 0)) return false;
    const Vec3d h1 = x + s1 * d1, h2 = x + s2 * d2;
    if (!hitOnCrystals(m, h1, module1) || !hitOnCrystals(m, h2, module2)) return false;
    const double sigma = setup_.positioningSigmaMm;
    double blur[4] = {0, 0, 0, 0};
    if (sigma > 0)
      for (double& b : blur) b = sigma * rng.normal();
    int c1 = 0, r1 = 0, c2 = 0, r2 = 0;
    snapToCrystal(m, h1, module1, blur[0], blur[1], &c1, &r1);
    snapToCrystal(m, h2, module2, blur[2], blur[3], &c2, &r2);
    if (!acceptLor(m, crystal(c1, r1), crystal(c2, r2))) return false;
    if (setup_.attenuation.mu && !survives(rng, x, h1, h2)) return false;
    double dtPs = (s1 - s2) / kSpeedOfLightMmPerPs;
    if (setup_.tofSigmaPs > 0) dtPs += setup_.tofSigmaPs * rng.normal();
    if (std::fabs(dtPs) > setup_.halfWindowPs) return false;
    event = ListModeEvent{};
    event.crystal1 = static_cast<std::uint16_t>(c1);
    event.ring1 = static_cast<std::uint16_t>(r1);
    event.crystal2 = static_cast<std::uint16_t>(c2);
    event.ring2 = static_cast<std::uint16_t>(r2);
    event.tofLsb = static_cast<std::int16_t>(std::lround(dtPs / setup_.tofLsbPs));
    return true;
  }

  Vec3d emissionPoint(CounterRng& rng) const {
    const EmissionTable& t = setup_.emission;
    const double u1 = rng.uniform(), u2 = rng.uniform();
    const std::int64_t voxel = t.pick(u1, u2);
    const std::int64_t ix = voxel % t.nx, iy = (voxel / t.nx) % t.ny, iz = voxel / (t.nx * t.ny);
    const double fx = rng.uniform(), fy = rng.uniform(), fz = rng.uniform();
    return {t.originMm.x() + t.voxelSizeMm.x() * (double(ix) + fx - 0.5),
            t.originMm.y() + t.voxelSizeMm.y() * (double(iy) + fy - 0.5),
            t.originMm.z() + t.voxelSizeMm.z() * (double(iz) + fz - 0.5)};
  }

  // Survival of both photons: the attenuation integral along x -> h1 and x -> h2 stays below an
  // Exp(1) draw (probability exp(-integral)); the walk stops once the draw is exceeded.
  bool survives(CounterRng& rng, Vec3d x, Vec3d h1, Vec3d h2) const {
    const double budget = rng.exponential();
    const double first = segmentIntegral(setup_.attenuation, x, h1, budget);
    if (first > budget) return false;
    return first + segmentIntegral(setup_.attenuation, x, h2, budget - first) <= budget;
  }

  Vec3d crystal(int c, int r) const {
    const Vec3d& xy = crystalXy_[std::size_t(c)];
    return {xy.x, xy.y, ringZ_[std::size_t(r)]};
  }

  // A random coincidence: two crystals drawn uniformly until the pair passes the acceptance
  // (every validated scanner has such pairs: opposite crystals of one ring), dt uniform in the
  // window.
  ListModeEvent randomEvent(CounterRng& rng, std::uint8_t flag) const {
    const DetectorHitModel& m = setup_.hits;
    const auto draw = [&rng](int n) {
      return std::min(n - 1, static_cast<int>(rng.uniform() * n));
    };
    int c1 = 0, r1 = 0, c2 = m.crystalsPerRing / 2, r2 = 0;
    for (int attempt = 0; attempt < 100000; ++attempt) {
      const int a1 = draw(m.crystalsPerRing), b1 = draw(m.rings);
      const int a2 = draw(m.crystalsPerRing), b2 = draw(m.rings);
      if (acceptLor(m, crystal(a1, b1), crystal(a2, b2))) {
        c1 = a1, r1 = b1, c2 = a2, r2 = b2;
        break;
      }
    }
    const double dtPs = (2 * rng.uniform() - 1) * setup_.halfWindowPs;
    ListModeEvent e;
    e.crystal1 = static_cast<std::uint16_t>(c1);
    e.ring1 = static_cast<std::uint16_t>(r1);
    e.crystal2 = static_cast<std::uint16_t>(c2);
    e.ring2 = static_cast<std::uint16_t>(r2);
    e.tofLsb = static_cast<std::int16_t>(std::lround(dtPs / setup_.tofLsbPs));
    e.flags = flag;
    return e;
  }

  // Trues, randoms and delayed interleaved as they would arrive: sorted by a random key.
  void shuffle(std::int64_t chunk, std::vector<ListModeEvent>& events) const {
    CounterRng rng(params_.seed, static_cast<std::uint64_t>(chunk), kShuffleSubstream);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keys(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
      const std::uint64_t hi = rng.nextU32();
      keys[i] = {(hi << 32) | rng.nextU32(), static_cast<std::uint32_t>(i)};
    }
    std::sort(keys.begin(), keys.end());
    std::vector<ListModeEvent> sorted(events.size());
    for (std::size_t i = 0; i < keys.size(); ++i) sorted[i] = events[keys[i].second];
    events = std::move(sorted);
  }

  ListModeSimulationParams params_;
  SimulationSetup setup_;
  std::vector<Vec3d> crystalXy_;
  std::vector<double> ringZ_;
};

using ChunkSink = std::function<void(std::span<const ListModeEvent>)>;

// Keeps the front of a chunk's events up to the `need`-th prompt; the counts become those kept.
void keepUntilPrompt(ChunkEvents& chunk, std::int64_t need, std::span<const ListModeEvent>& kept) {
  std::int64_t prompts = 0;
  std::size_t end = 0;
  chunk.trues = chunk.randoms = chunk.delayed = 0;
  while (prompts < need) {
    const std::uint8_t flags = chunk.events[end++].flags;
    if (flags & kEventDelayed) {
      ++chunk.delayed;
      continue;
    }
    ++prompts;
    ++((flags & kEventRandom) ? chunk.randoms : chunk.trues);
  }
  kept = kept.first(end);
}

// Runs chunks in waves (OpenMP within a wave), hands their events to the sink in chunk order and
// fills the report's counts. Requested prompts: stops inside the chunk that reaches them.
class SimulationDriver {
 public:
  SimulationDriver(const Simulation& sim, const ListModeSimulationParams& params,
                   ListModeSimulationReport& report, const ChunkSink& sink, JobContext& context)
      : sim_(sim),
        params_(params),
        report_(report),
        sink_(sink),
        context_(context),
        requested_(params.requestedPrompts > 0),
        threads_(omp_get_max_threads()) {
    if (!requested_) totalDecays_ = sampleBandDecays(sim.setup(), params.seed);
  }

  void run() {
    for (bool done = false; !done;) {
      context_.throwIfCancelled();
      checkDecayBudget();
      const std::int64_t count = chunksForNextWave();
      simulateWave(count);
      done = consumeWave();
      chunk_ += count;
      firstDecay_ += count * kSimulationChunkDecays;
      if (!requested_) done = firstDecay_ >= totalDecays_;
      context_.reportProgress("simulate list mode", progress());
    }
  }

 private:
  std::int64_t chunksForNextWave() const {
    const std::int64_t wave = std::max(8, 4 * threads_);
    if (!requested_)
      return std::min(
          wave, (totalDecays_ - firstDecay_ + kSimulationChunkDecays - 1) / kSimulationChunkDecays);
    if (chunk_ == 0 || report_.prompts() == 0) return threads_;  // a first look at the yield
    // As many chunks as the yield so far says are still needed (the events do not depend on how
    // chunks are grouped into waves; only the work wasted past the last prompt does).
    const double perChunk = double(report_.prompts()) / double(chunk_);
    const double needed = double(params_.requestedPrompts - report_.prompts()) / perChunk * 1.05;
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(needed)), 1, wave);
  }

  void checkDecayBudget() const {
    if (!requested_ || firstDecay_ < params_.maxBandDecays) return;
    throw ParameterError("requestedPrompts",
                         std::to_string(firstDecay_) + " annihilations gave only " +
                             std::to_string(report_.prompts()) + " of " +
                             std::to_string(params_.requestedPrompts) +
                             " prompts (maxBandDecays); is the activity seen by the scanner?");
  }

  void simulateWave(std::int64_t count) {
    results_.assign(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)), {});
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < count; ++i) {
      if (context_.cancelToken().requested()) continue;  // the wave is thrown away below
      const std::int64_t first = firstDecay_ + i * kSimulationChunkDecays;
      const std::int64_t n = requested_ ? kSimulationChunkDecays
                                        : std::min(kSimulationChunkDecays, totalDecays_ - first);
      results_[std::size_t(i)] = sim_.simulateChunk(chunk_ + i, first, n);
    }
    context_.throwIfCancelled();
  }

  // Hands the wave's events over in chunk order; true once the requested prompts are reached.
  bool consumeWave() {
    for (ChunkEvents& r : results_) {
      std::span<const ListModeEvent> events(r.events);
      const std::int64_t prompts = r.trues + r.randoms;
      const bool last = requested_ && report_.prompts() + prompts >= params_.requestedPrompts;
      if (last) {
        const std::int64_t need = params_.requestedPrompts - report_.prompts();
        r.decays = std::llround(double(r.decays) * double(need) / double(prompts));
        keepUntilPrompt(r, need, events);
      }
      sink_(events);
      report_.bandDecays += r.decays;
      report_.trues += r.trues;
      report_.randoms += r.randoms;
      report_.delayed += r.delayed;
      if (last) return true;
    }
    return false;
  }

  double progress() const {
    if (requested_) return double(report_.prompts()) / double(params_.requestedPrompts);
    return totalDecays_ > 0 ? std::min(1.0, double(firstDecay_) / double(totalDecays_)) : 1.0;
  }

  const Simulation& sim_;
  const ListModeSimulationParams& params_;
  ListModeSimulationReport& report_;
  const ChunkSink& sink_;
  JobContext& context_;
  const bool requested_;
  const int threads_;
  std::int64_t totalDecays_ = 0;
  std::int64_t chunk_ = 0, firstDecay_ = 0;
  std::vector<ChunkEvents> results_;
};

ListModeSimulationReport simulate(const ScannerModel& scanner, const Volume& activity,
                                  const Volume* attenuation, const ListModeSimulationParams& params,
                                  const ChunkSink& sink, JobContext& context) {
  const auto start = std::chrono::steady_clock::now();
  const Simulation sim(scanner, activity, attenuation, params);
  const SimulationSetup& setup = sim.setup();
  ListModeSimulationReport report;
  report.bandFraction = setup.bandSin;
  report.threads = omp_get_max_threads();
  SimulationDriver(sim, params, report, sink, context).run();
  if (params.requestedPrompts > 0) {
    // The activity these prompts stand for: the decays it takes on average to make them.
    const double perBq = setup.expectedBandDecays / setup.emission.totalActivityBq;
    report.activityBq = double(report.bandDecays) / perBq;
    report.expectedDecays =
        report.activityBq * (setup.expectedDecays / setup.emission.totalActivityBq);
  } else {
    report.activityBq = setup.emission.totalActivityBq;
    report.expectedDecays = setup.expectedDecays;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace

SimulatedListMode simulateListMode(const ScannerModel& scanner, const Volume& activityBqPerMl,
                                   const Volume* attenuationPerMm,
                                   const ListModeSimulationParams& params, JobContext& context) {
  SimulatedListMode out;
  const ChunkSink sink = [&out](std::span<const ListModeEvent> events) {
    out.events.insert(out.events.end(), events.begin(), events.end());
  };
  out.report = simulate(scanner, activityBqPerMl, attenuationPerMm, params, sink, context);
  return out;
}

ListModeSimulationReport simulateListModeFile(
    const ScannerModel& scanner, const Volume& activityBqPerMl, const Volume* attenuationPerMm,
    const ListModeSimulationParams& params, const std::filesystem::path& path,
    const ListModeHeader& headerTemplate, JobContext& context) {
  // Inputs are checked before the file is created, so a bad parameter leaves nothing behind.
  prepareSimulation(scanner, activityBqPerMl, attenuationPerMm, params);
  ListModeWriter writer(path, simulatedListModeHeader(scanner, params, {}, headerTemplate));
  const ChunkSink sink = [&writer](std::span<const ListModeEvent> events) {
    writer.append(events);
  };
  const ListModeSimulationReport report =
      simulate(scanner, activityBqPerMl, attenuationPerMm, params, sink, context);
  writer.commit(simulatedListModeHeader(scanner, params, report, headerTemplate));
  return report;
}

ListModeHeader simulatedListModeHeader(const ScannerModel& scanner,
                                       const ListModeSimulationParams& params,
                                       const ListModeSimulationReport& report,
                                       ListModeHeader header) {
  header.scanner = scanner;
  header.tofLsbPs = scanner.tofLsbPs;
  header.acquisitionSeconds = params.acquisitionSeconds;
  if (params.halfLifeS > 0) header.halfLifeS = params.halfLifeS;
  header.promptCount = report.prompts();
  header.delayedCount = report.delayed;
  header.eventCount = report.prompts() + report.delayed;
  ListModeSimulationTruth truth;
  truth.seed = params.seed;
  truth.bandDecays = report.bandDecays;
  truth.bandFraction = report.bandFraction > 0
                           ? report.bandFraction
                           : std::sin(params.emissionBandDeg * std::numbers::pi / 180);
  truth.activityBq = report.activityBq;
  truth.trues = report.trues;
  truth.randoms = report.randoms;
  header.simulation = truth;
  if (header.source.empty()) header.source = "tomowb list-mode simulator (CPU)";
  return header;
}

}  // namespace tomowb::pet
