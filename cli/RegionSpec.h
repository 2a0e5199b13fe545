// Parses region specifications of the command line into metrics::Region:
//   whole | cylinder:FRACTION | cylinder-mm:RADIUS | slab:Z0:Z1 | sphere:X,Y,Z,R | mask:FILE
// Several specifications intersect ("cylinder:0.9" and "slab:100:156").
#pragma once

#include <string>
#include <vector>

#include "recon/metrics/Region.h"

namespace tomowb::cli {

metrics::Region parseRegion(const std::string& spec);
metrics::Region parseRegions(const std::vector<std::string>& specs);
inline constexpr const char* kRegionHelp =
    "whole, cylinder:FRACTION (of the in-plane half-size), cylinder-mm:RADIUS, slab:Z0:Z1 "
    "(slices, end exclusive), sphere:X,Y,Z,R (mm) or mask:FILE; repeat to intersect";

}  // namespace tomowb::cli
