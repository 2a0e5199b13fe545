// RayInterval: the parameter range [enter, exit] over which the line origin + t * direction lies
// inside a phantom shape. With a unit direction the range is in mm and exit - enter is the chord.
#pragma once

namespace tomowb::phantom {

struct RayInterval {
  double enter = 0.0;
  double exit = 0.0;
  double length() const noexcept { return exit > enter ? exit - enter : 0.0; }
};

}  // namespace tomowb::phantom
