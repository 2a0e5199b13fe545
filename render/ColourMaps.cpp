// ColourMaps: see the header. Viridis is approximated by 11 anchors sampled from matplotlib's
// table (linear interpolation between them stays within a few 1/255 of the original); the
// diverging map is Moreland's cool-warm through white.
#include "render/ColourMaps.h"

#include <vtkColorTransferFunction.h>
#include <vtkLookupTable.h>

#include <algorithm>
#include <cmath>

namespace tomowb::render {

namespace {

using Rgb = std::array<double, 3>;

Rgb interpolate(const Rgb* anchors, int count, double t) {
  const double x = std::clamp(t, 0.0, 1.0) * (count - 1);
  const int i = std::min(static_cast<int>(x), count - 2);
  const double f = x - i;
  Rgb out;
  for (int c = 0; c < 3; ++c) out[c] = anchors[i][c] * (1 - f) + anchors[i + 1][c] * f;
  return out;
}

constexpr Rgb kViridis[] = {{0.267, 0.005, 0.329}, {0.283, 0.141, 0.458}, {0.254, 0.265, 0.530},
                            {0.207, 0.372, 0.553}, {0.164, 0.471, 0.558}, {0.128, 0.567, 0.551},
                            {0.135, 0.659, 0.518}, {0.267, 0.749, 0.441}, {0.478, 0.821, 0.318},
                            {0.741, 0.873, 0.150}, {0.993, 0.906, 0.144}};
constexpr Rgb kCoolWarm[] = {{0.230, 0.299, 0.754},
                             {0.552, 0.690, 0.996},
                             {0.865, 0.865, 0.865},
                             {0.958, 0.604, 0.482},
                             {0.706, 0.016, 0.150}};

}  // namespace

std::vector<ColourMap> allColourMaps() {
  return {ColourMap::Grey, ColourMap::InvertedGrey, ColourMap::Hot, ColourMap::Viridis,
          ColourMap::Diverging};
}

QString colourMapName(ColourMap map) {
  switch (map) {
    case ColourMap::Grey:
      return "Grey";
    case ColourMap::InvertedGrey:
      return "Inverted grey";
    case ColourMap::Hot:
      return "Hot";
    case ColourMap::Viridis:
      return "Viridis";
    case ColourMap::Diverging:
      return "Diverging (difference)";
  }
  return "Grey";
}

std::array<double, 3> colourAt(ColourMap map, double t) {
  t = std::clamp(t, 0.0, 1.0);
  switch (map) {
    case ColourMap::Grey:
      return {t, t, t};
    case ColourMap::InvertedGrey:
      return {1 - t, 1 - t, 1 - t};
    case ColourMap::Hot:  // black -> red -> yellow -> white
      return {std::clamp(3 * t, 0.0, 1.0), std::clamp(3 * t - 1, 0.0, 1.0),
              std::clamp(3 * t - 2, 0.0, 1.0)};
    case ColourMap::Viridis:
      return interpolate(kViridis, std::size(kViridis), t);
    case ColourMap::Diverging:
      return interpolate(kCoolWarm, std::size(kCoolWarm), t);
  }
  return {t, t, t};
}

void fillLookupTable(vtkLookupTable* table, ColourMap map, double lower, double upper) {
  const int entries = std::max<int>(2, static_cast<int>(table->GetNumberOfTableValues()));
  table->SetNumberOfTableValues(entries);
  table->SetRange(lower, upper > lower ? upper : lower + 1.0);
  for (int i = 0; i < entries; ++i) {
    const auto rgb = colourAt(map, static_cast<double>(i) / (entries - 1));
    table->SetTableValue(i, rgb[0], rgb[1], rgb[2], 1.0);
  }
  table->Modified();
}

vtkSmartPointer<vtkLookupTable> makeLookupTable(ColourMap map, double lower, double upper,
                                                int entries) {
  auto table = vtkSmartPointer<vtkLookupTable>::New();
  table->SetNumberOfTableValues(entries);
  table->Build();
  fillLookupTable(table, map, lower, upper);
  return table;
}

void fillColourTransferFunction(vtkColorTransferFunction* function, ColourMap map, double lower,
                                double upper) {
  function->RemoveAllPoints();
  if (!(upper > lower)) upper = lower + 1.0;
  constexpr int kNodes = 32;
  for (int i = 0; i < kNodes; ++i) {
    const double t = static_cast<double>(i) / (kNodes - 1);
    const auto rgb = colourAt(map, t);
    function->AddRGBPoint(lower + t * (upper - lower), rgb[0], rgb[1], rgb[2]);
  }
  function->ClampingOn();
}

vtkSmartPointer<vtkColorTransferFunction> makeColourTransferFunction(ColourMap map, double lower,
                                                                     double upper) {
  auto function = vtkSmartPointer<vtkColorTransferFunction>::New();
  fillColourTransferFunction(function, map, lower, upper);
  return function;
}

}  // namespace tomowb::render
