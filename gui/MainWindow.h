#pragma once
#include <QMainWindow>
namespace tomowb::gui {
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
};
}  // namespace tomowb::gui
