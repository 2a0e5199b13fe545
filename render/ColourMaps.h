// ColourMaps: the colour maps every view offers (grey, inverted grey, hot, a viridis-like
// perceptual map, and a blue-white-red diverging map for zero-centred differences in kernel QA,
// reference/ux-and-robustness.md 1.3), as vtkLookupTable for 2-D images and as
// vtkColorTransferFunction for volume rendering, both spanning a given scalar range.
#pragma once

#include <vtkSmartPointer.h>

#include <QString>
#include <array>
#include <vector>

class vtkLookupTable;
class vtkColorTransferFunction;

namespace tomowb::render {

enum class ColourMap { Grey, InvertedGrey, Hot, Viridis, Diverging };

std::vector<ColourMap> allColourMaps();
QString colourMapName(ColourMap map);  // "Grey", "Inverted grey", ...

// Colour at t in [0, 1] (clamped), RGB in [0, 1].
std::array<double, 3> colourAt(ColourMap map, double t);

// A 256-entry table over [lower, upper]; values outside take the end colours.
vtkSmartPointer<vtkLookupTable> makeLookupTable(ColourMap map, double lower, double upper,
                                                int entries = 256);
// Fills an existing table (keeps the pointer held by image properties).
void fillLookupTable(vtkLookupTable* table, ColourMap map, double lower, double upper);

// A piecewise-linear colour function over [lower, upper] with 32 nodes.
vtkSmartPointer<vtkColorTransferFunction> makeColourTransferFunction(ColourMap map, double lower,
                                                                     double upper);
void fillColourTransferFunction(vtkColorTransferFunction* function, ColourMap map, double lower,
                                double upper);

}  // namespace tomowb::render
