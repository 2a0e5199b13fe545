// One TOF-PET list-mode event as the workbench keeps it in memory and on disk (ListModeFile.h,
// docs/pet.md): the two crystals (index within the ring, ring) and the time difference
// delta t = t1 - t2 in units of the scanner's tofLsbPs, so the most likely annihilation point is
// m + (c delta t / 2) u with u pointing from crystal 1 to crystal 2 (reference/direct-tof-pet.md,
// section 2.2: an annihilation near crystal 1 gives delta t < 0). 12 bytes, little-endian,
// aligned for the GPU.
#pragma once

#include <cstdint>

namespace tomowb::pet {

enum EventFlag : std::uint8_t {
  kEventDelayed = 1,    // from the delayed coincidence window (a randoms estimate), not a prompt
  kEventRandom = 2,     // simulator truth: a random coincidence among the prompts
  kEventScattered = 4,  // simulator truth: one photon scattered
};

struct ListModeEvent {
  std::uint16_t crystal1 = 0, ring1 = 0;
  std::uint16_t crystal2 = 0, ring2 = 0;
  std::int16_t tofLsb = 0;  // t1 - t2 in scanner.tofLsbPs units
  std::uint8_t flags = 0;   // EventFlag bits
  std::uint8_t reserved = 0;
};
static_assert(sizeof(ListModeEvent) == 12, "the list-mode record is 12 bytes");

}  // namespace tomowb::pet
