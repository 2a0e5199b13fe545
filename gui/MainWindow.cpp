#include "gui/MainWindow.h"
namespace tomowb::gui {
MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {}
}  // namespace tomowb::gui
