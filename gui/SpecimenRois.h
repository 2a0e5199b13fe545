// SpecimenRois: CNR regions the window places by itself on the ET demo's specimen
// (phantom::etSpecimenPhantom) for the tour of scripts/screenshots.sh: circles inside the two
// largest cells on the mid-plane, against a disc of bare embedding slab.
#pragma once

#include <vector>

#include "recon/phantom/Phantom.h"
#include "render/SliceRoi.h"

namespace tomowb::gui {

// Whether `phantom` is the ET demo's specimen ("et-specimen"); false for nullptr.
bool isEtSpecimen(const phantom::Phantom* phantom);
// The ROIs on the coronal mid-plane y = 0 (axis 1), or fewer when the cells do not fit.
std::vector<render::SliceRoi> etSpecimenRois(const phantom::Phantom& phantom);

}  // namespace tomowb::gui
