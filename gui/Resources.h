// The Qt resources of the workbench (icons, presets) live in the static tomowb_gui library; call
// initResources() once after creating the application so that ":/tomowb/..." paths resolve.
#pragma once

namespace tomowb::gui {
void initResources();
}  // namespace tomowb::gui
