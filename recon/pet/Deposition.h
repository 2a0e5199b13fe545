// Deposition (histo-imaging): list-mode events into DIRECT's per-view histo-images at their most
// likely annihilation points (reference/direct-tof-pet.md, section 2.2; EventGeometry.h).
//  - Nearest: +1 at the nearest voxel (integer counts; bit-identical on CPU and GPU and between
//    runs, uint32 atomics on the GPU).
//  - Trilinear: the event shared over the 8 voxels around the point ("weighted histogramming").
//  - TofKernel: the event spread along its LOR with the TOF Gaussian (sigma of the scanner's
//    CTR, cut at +-3 sigma, samples half a voxel apart, each shared trilinearly). The histo-image
//    is then blurred along t twice: reconstruct with the TOF sigma times sqrt(2)
//    (DepositionParams::tofSigmaFactor).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "recon/job/JobContext.h"
#include "recon/pet/EventGeometry.h"
#include "recon/pet/HistoImages.h"
#include "recon/pet/ListModeEvent.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::pet {

enum class DepositionMode { Nearest, Trilinear, TofKernel };
enum class EventStream { Prompts, Delayed };

std::string toString(DepositionMode mode);  // "nearest", "trilinear", "tof-kernel"
// ParameterError naming `parameter` for an unknown name.
DepositionMode parseDepositionMode(std::string_view text,
                                   std::string_view parameter = "deposition");

struct DepositionParams {
  DepositionMode mode = DepositionMode::Nearest;
  EventStream stream = EventStream::Prompts;  // which events: prompts or the delayed window's
  double tofKernelSigmas = 3.0;               // TofKernel: the cut, in sigmas
};

// How much wider the TOF kernel of the system model must be for data deposited this way.
double tofSigmaFactor(DepositionMode mode);

struct DepositionReport {
  std::uint64_t events = 0;       // of the chosen stream
  std::uint64_t deposited = 0;    // inside the tilt acceptance and the grid
  std::uint64_t outsideTilt = 0;  // beyond the views' maximum tilt
  std::uint64_t outsideGrid = 0;  // most likely point outside the histo-images' grid
  std::uint64_t degenerate = 0;   // both crystals the same
  double seconds = 0;
  std::string device;  // "CPU, 16 threads", "GPU 0 (...)"
};

// The float32 tables of EventGeometry.h for a scanner, grid and views, owned.
class EventGeometryTableSet {
 public:
  EventGeometryTableSet(const ScannerModel& scanner, const VolumeGrid& grid,
                        const ViewBinning& views);
  const EventGeometryTables& tables() const noexcept { return tables_; }
  // The raw arrays, for an upload to the GPU.
  const std::vector<float>& crystalX() const noexcept { return crystalX_; }
  const std::vector<float>& crystalY() const noexcept { return crystalY_; }
  const std::vector<float>& ringZ() const noexcept { return ringZ_; }
  const std::vector<float>& azimuthCos() const noexcept { return azimuthCos_; }
  const std::vector<float>& azimuthSin() const noexcept { return azimuthSin_; }
  const std::vector<float>& tiltEdgeSin() const noexcept { return tiltEdgeSin_; }

 private:
  std::vector<float> crystalX_, crystalY_, ringZ_, azimuthCos_, azimuthSin_, tiltEdgeSin_;
  EventGeometryTables tables_;
};

// Adds the events of params.stream into `histo` (which keeps what it holds). The events must
// have been validated against `scanner` (ListModeReader does). CPU, OpenMP; deterministic for
// every mode and thread count. Throws Cancelled (histo then holds a partial sum: the caller
// discards it).
DepositionReport depositEvents(const ScannerModel& scanner, std::span<const ListModeEvent> events,
                               const DepositionParams& params, HistoImages& histo,
                               JobContext& context);

// One event's weighted samples for the non-integer modes: calls add(view, voxelIndex, weight)
// for each voxel it touches (used by the CPU path and its tests).
struct VoxelWeight {
  std::int64_t voxel;
  float weight;
};
void spreadEvent(const EventGeometryTables& t, const EventPoint& e, DepositionMode mode,
                 double tofSigmaMm, double tofKernelSigmas, std::vector<VoxelWeight>& out);

}  // namespace tomowb::pet
