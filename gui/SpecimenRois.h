// SpecimenRois: CNR regions the window places by itself on a demo's phantom for the tour of
// scripts/screenshots.sh: on the ET demo's specimen (phantom::etSpecimenPhantom) circles inside
// the two largest cells on the mid-plane, against a disc of bare embedding slab; on any other
// phantom (the Shepp-Logan head of the helical demo) an axial slice's lowest-contrast insert
// against the tissue most of the slice has.
#pragma once

#include <vector>

#include "recon/phantom/Phantom.h"
#include "render/SliceRoi.h"

namespace tomowb::gui {

// Whether `phantom` is the ET demo's specimen ("et-specimen"); false for nullptr.
bool isEtSpecimen(const phantom::Phantom* phantom);
// The ROIs on the coronal mid-plane y = 0 (axis 1), or fewer when the cells do not fit.
std::vector<render::SliceRoi> etSpecimenRois(const phantom::Phantom& phantom);
// A Signal and a Background circle on the axial slice z = zMm (axis 2), both inside regions of
// one value: the background the value of most of the slice, the signal the value closest to it
// (other than it and 0); none when the slice has fewer than two such values.
std::vector<render::SliceRoi> axialPhantomRois(const phantom::Phantom& phantom, double zMm);

}  // namespace tomowb::gui
