// tomowb: the Tomo Workbench desktop application.
#include <QApplication>

#include "gui/MainWindow.h"
#include "render/VtkOpenGLWidget.h"

int main(int argc, char** argv) {
  tomowb::render::VtkOpenGLWidget::configureDefaultSurfaceFormat();
  QApplication app(argc, argv);
  tomowb::gui::MainWindow window;
  window.show();
  return QApplication::exec();
}
