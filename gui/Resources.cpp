// initResources: Q_INIT_RESOURCE must run outside any namespace (it declares the generated
// function), so a file-level helper does it.
#include "gui/Resources.h"

#include <QtGlobal>

static void initTomowbResources() {
  Q_INIT_RESOURCE(tomowb);
}

namespace tomowb::gui {
void initResources() {
  initTomowbResources();
}
}  // namespace tomowb::gui
