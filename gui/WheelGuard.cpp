// WheelGuard: see the header. The wheel event is handed to the nearest enclosing scroll area's
// viewport explicitly rather than left to QApplication's propagation, which only propagates
// spontaneous wheel events (and so behaves differently for synthetic ones).
#include "gui/WheelGuard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>
#include <QWheelEvent>

namespace tomowb::gui {

void WheelGuard::install() {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  if (app == nullptr || app->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly)) return;
  app->installEventFilter(new WheelGuard(app));
}

bool WheelGuard::guards(const QWidget* widget) {
  if (widget == nullptr) return false;
  if (qobject_cast<const QAbstractSpinBox*>(widget) || qobject_cast<const QComboBox*>(widget))
    return true;
  // Scroll bars are there to be wheeled; sliders hold values.
  return qobject_cast<const QAbstractSlider*>(widget) && !qobject_cast<const QScrollBar*>(widget);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  const QEvent::Type type = event->type();
  if (type != QEvent::Wheel && type != QEvent::Polish) return false;
  auto* widget = qobject_cast<QWidget*>(watched);
  if (!guards(widget)) return false;
  if (type == QEvent::Polish) {
    // Qt::WheelFocus (the spin boxes' and combos' default) would let the wheel give focus.
    if (widget->focusPolicy() == Qt::WheelFocus) widget->setFocusPolicy(Qt::StrongFocus);
    return false;
  }
  const QWidget* focus = QApplication::focusWidget();
  if (widget->hasFocus() || (focus != nullptr && widget->isAncestorOf(focus))) return false;
  // The panel scrolls instead: the nearest scroll area around the widget gets the event.
  auto* wheel = static_cast<QWheelEvent*>(event);
  for (QWidget* parent = widget->parentWidget(); parent != nullptr && !parent->isWindow();
       parent = parent->parentWidget()) {
    auto* area = qobject_cast<QAbstractScrollArea*>(parent);
    if (area == nullptr) continue;
    QWidget* viewport = area->viewport();
    QWheelEvent forwarded(viewport->mapFromGlobal(wheel->globalPosition()), wheel->globalPosition(),
                          wheel->pixelDelta(), wheel->angleDelta(), wheel->buttons(),
                          wheel->modifiers(), wheel->phase(), wheel->inverted(), wheel->source(),
                          wheel->pointingDevice());
    QCoreApplication::sendEvent(viewport, &forwarded);
    break;
  }
  // Nothing else sees it: the parents of a scroll area (a dock, the window) have no use for it.
  event->accept();
  return true;
}

}  // namespace tomowb::gui
