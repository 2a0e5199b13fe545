// CompareViewInternal.h: what the CompareView*.cpp files share and nothing else includes: the
// views' enums under short names, and the number format of the table, the cursor and the report.
#pragma once

#include <QString>

#include "render/CompareViews.h"

namespace tomowb::gui::detail {

using Which = render::CompareViews::Which;
using Mode = render::CompareViews::Mode;

// "—" for NaN, "∞" for infinity, else `digits` significant digits (CompareViewFigures.cpp).
QString number(double v, int digits = 4);

}  // namespace tomowb::gui::detail
