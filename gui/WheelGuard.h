// WheelGuard: the mouse wheel never edits a parameter it merely passes over (issue #21 point 6,
// ux-review-2026-11.md change 8). One application-wide event filter: every spin box, combo box
// and slider (scroll bars excepted) gets Qt::StrongFocus when it is polished, so the wheel no
// longer gives it focus; a wheel event over one that has no focus is left unhandled and goes on
// to its parents, so the panel's scroll area scrolls instead. A widget the user clicked or tabbed
// into takes the wheel as before.
#pragma once

#include <QObject>

class QWidget;

namespace tomowb::gui {

class WheelGuard : public QObject {
  Q_OBJECT

 public:
  // Installs the one guard on the QApplication (again: nothing happens). Call after the
  // QApplication exists; the application owns the guard.
  static void install();
  // True when `widget` is one whose value the wheel would change (spin box, combo, slider).
  static bool guards(const QWidget* widget);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  using QObject::QObject;
};

}  // namespace tomowb::gui
