// DockLayout: see the header.
#include "gui/DockLayout.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QCursor>
#include <QDockWidget>
#include <QEvent>
#include <QFormLayout>
#include <QFrame>
#include <QLayout>
#include <QMainWindow>
#include <QScreen>
#include <QScrollBar>
#include <QStackedWidget>
#include <QStyle>
#include <QTabBar>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace tomowb::gui {

namespace {

bool isSide(Qt::DockWidgetArea area) {
  return area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
}

// Docked and shown (a tab behind another is not visible: its group is sized through the front
// tab).
bool placedDock(const QMainWindow* window, const QDockWidget* dock) {
  return dock->isVisible() && !dock->isFloating() &&
         window->dockWidgetArea(const_cast<QDockWidget*>(dock)) != Qt::NoDockWidgetArea;
}

}  // namespace

PanelScrollArea::PanelScrollArea(QWidget* parent, bool fitWidth)
    : QScrollArea(parent), fitWidth_(fitWidth) {
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  if (fitWidth_) setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

QSize PanelScrollArea::minimumSizeHint() const {
  const QSize base = QScrollArea::minimumSizeHint();
  if (widget() == nullptr || !fitWidth_) return base;
  // Room for the panel's widest row and for the vertical scroll bar a short dock shows.
  const int scrollBar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
  const int frame = 2 * frameWidth();
  return {std::max(base.width(), widget()->minimumSizeHint().width() + scrollBar + frame),
          base.height()};
}

bool PanelScrollArea::eventFilter(QObject* watched, QEvent* event) {
  // The panel's layout changed (another algorithm's form, rows shown or hidden): its minimum
  // width may have too, and the dock must hear of it.
  if (fitWidth_ && watched == widget() && event->type() == QEvent::LayoutRequest) {
    relaxComboWidths();
    updateGeometry();
  }
  return QScrollArea::eventFilter(watched, event);
}

void PanelScrollArea::relaxComboWidths() {
  // Forms put a field under its label when the dock is too narrow for both side by side.
  for (QFormLayout* form : widget()->findChildren<QFormLayout*>())
    if (form->rowWrapPolicy() == QFormLayout::DontWrapRows)
      form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  constexpr int kMinimumCharacters = 12;
  for (QComboBox* combo : widget()->findChildren<QComboBox*>()) {
    if (combo->sizeAdjustPolicy() == QComboBox::AdjustToContentsOnFirstShow) {
      combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
      if (combo->minimumContentsLength() == 0) combo->setMinimumContentsLength(kMinimumCharacters);
    }
    // The popup as wide as its longest item, not as the (narrower) combo.
    if (combo->sizeAdjustPolicy() == QComboBox::AdjustToMinimumContentsLengthWithIcon)
      combo->view()->setMinimumWidth(combo->view()->sizeHintForColumn(0) + 8);
  }
}

void sizeStackByCurrentPage(QStackedWidget* stack) {
  auto apply = [stack] {
    for (int i = 0; i < stack->count(); ++i) {
      QWidget* page = stack->widget(i);
      const bool shown = page == stack->currentWidget();
      page->setSizePolicy(shown ? QSizePolicy::Preferred : QSizePolicy::Ignored,
                          shown ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    }
    stack->updateGeometry();
  };
  QObject::connect(stack, &QStackedWidget::currentChanged, stack, apply);
  apply();
}

DockSizeKeeper::DockSizeKeeper(QMainWindow* window) : QObject(window), window_(window) {
  window_->installEventFilter(this);
  lastSize_ = window_->size();
  // A dock dragged to another place: the sizes it left are the user's.
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) {
    connect(dock, &QDockWidget::dockLocationChanged, this,
            [this] { QTimer::singleShot(0, this, &DockSizeKeeper::remember); });
    dock->installEventFilter(this);
  }
}

int DockSizeKeeper::keptSize(const QDockWidget* dock) const {
  return kept_.value(dock, 0);
}

void DockSizeKeeper::remember() {
  // Sizes just set with resizeDocks reach the docks when the window's layout runs.
  if (window_->layout() != nullptr) window_->layout()->activate();
  takeSizes();
  lastSize_ = window_->size();
}

void DockSizeKeeper::takeSizes() {
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) {
    if (!placedDock(window_, dock)) continue;
    kept_[dock] = isSide(window_->dockWidgetArea(dock)) ? dock->width() : dock->height();
  }
}

void DockSizeKeeper::restore() {
  QList<QDockWidget*> wide, tall;
  QList<int> widths, heights;
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) {
    const int kept = kept_.value(dock, 0);
    if (kept <= 0 || !placedDock(window_, dock)) continue;
    const bool side = isSide(window_->dockWidgetArea(dock));
    const int now = side ? dock->width() : dock->height();
    if (now >= kept) continue;
    (side ? wide : tall) << dock;
    (side ? widths : heights) << kept;
  }
  restoring_ = true;
  // Qt shares out what it cannot give: the central widget keeps its minimum size.
  if (!wide.isEmpty()) window_->resizeDocks(wide, widths, Qt::Horizontal);
  if (!tall.isEmpty()) window_->resizeDocks(tall, heights, Qt::Vertical);
  // Applied now, while restoring: what the window had no room for is not a size to keep.
  if (window_->layout() != nullptr) window_->layout()->activate();
  restoring_ = false;
}

bool DockSizeKeeper::eventFilter(QObject* watched, QEvent* event) {
  if (auto* dock = qobject_cast<QDockWidget*>(watched)) {
    // A dock resized while the window keeps its size: a separator drag, a panel that grew with
    // its data, the default layout. That size is the one to give back after a shrink. (While
    // the window itself is being resized its layout resizes the docks before the window's own
    // resize event reaches this filter: then the window's size differs from lastSize_.)
    if (event->type() == QEvent::Resize && !restoring_ && window_->size() == lastSize_ &&
        placedDock(window_, dock))
      kept_[dock] = isSide(window_->dockWidgetArea(dock)) ? dock->width() : dock->height();
    return false;
  }
  if (watched != window_) return false;
  switch (event->type()) {
    case QEvent::Resize: {
      const QSize now = window_->size();
      const bool grew = now.width() > lastSize_.width() || now.height() > lastSize_.height();
      lastSize_ = now;
      // After the window's layout has placed the docks at their new sizes.
      if (grew && !kept_.isEmpty())
        QTimer::singleShot(0, this, [this] {
          if (!restoring_) restore();
        });
      break;
    }
    case QEvent::MouseButtonRelease: {
      // The end of a separator drag (QMainWindow shows a split cursor over its separators): the
      // user's sizes are the ones to keep.
      const Qt::CursorShape shape = window_->cursor().shape();
      if (shape == Qt::SplitHCursor || shape == Qt::SplitVCursor)
        QTimer::singleShot(0, this, &DockSizeKeeper::remember);
      break;
    }
    default:
      break;
  }
  return false;
}

void pinUnderScrollArea(QDockWidget* dock, QWidget* footer) {
  QWidget* area = dock->widget();
  // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): the dock owns it
  auto* holder = new QWidget(dock);
  holder->setObjectName(dock->objectName() + QStringLiteral("Holder"));
  auto* layout = new QVBoxLayout(holder);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(area, 1);
  // A rule between the scrolling form and the pinned footer.
  auto* rule = new QFrame(holder);
  rule->setFrameShape(QFrame::HLine);
  rule->setFrameShadow(QFrame::Sunken);
  layout->addWidget(rule);
  auto* foot = new QVBoxLayout;
  foot->setContentsMargins(4, 4, 4, 4);
  foot->addWidget(footer);
  layout->addLayout(foot);
  dock->setWidget(holder);
}

QScrollArea* panelScrollArea(const QDockWidget* dock) {
  if (dock == nullptr || dock->widget() == nullptr) return nullptr;
  if (auto* area = qobject_cast<QScrollArea*>(dock->widget())) return area;
  return dock->widget()->findChild<QScrollArea*>(QString(), Qt::FindDirectChildrenOnly);
}

void fitAlgorithmDock(QMainWindow& window, QDockWidget* dock, QDockWidget* below) {
  if (dock == nullptr || below == nullptr || !placedDock(&window, dock) ||
      !placedDock(&window, below) || window.dockWidgetArea(dock) != window.dockWidgetArea(below) ||
      window.tabifiedDockWidgets(dock).contains(below))
    return;
  if (window.layout() != nullptr) window.layout()->activate();
  QScrollArea* area = panelScrollArea(dock);
  QWidget* panel = area != nullptr ? area->widget() : dock->widget();
  if (panel == nullptr) return;
  // The title bar, frames and a pinned footer around the panel, and the panel at the dock's width
  // (labels wrap).
  QWidget* shown = area != nullptr ? static_cast<QWidget*>(area) : dock->widget();
  const int chrome = std::max(0, dock->height() - shown->height());
  const int width = shown->width();
  const int panelHeight =
      panel->hasHeightForWidth() ? panel->heightForWidth(width) : panel->sizeHint().height();
  const int needed = chrome + std::max(panelHeight, panel->minimumSizeHint().height());
  const int separator = window.style()->pixelMetric(QStyle::PM_DockWidgetSeparatorExtent);
  const int column = dock->height() + below->height() + separator;
  const int belowMinimum = below->minimumSizeHint().height();
  if (needed + separator + belowMinimum <= column) {
    window.resizeDocks({dock, below}, {needed, column - needed - separator}, Qt::Vertical);
    return;
  }
  QList<QDockWidget*> group = window.tabifiedDockWidgets(below);
  group.prepend(below);
  for (QDockWidget* other : group) window.tabifyDockWidget(dock, other);
  dock->raise();
}

void showWholeDockTabTitles(QMainWindow& window) {
  for (QTabBar* bar : window.findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
    bar->setElideMode(Qt::ElideNone);
    bar->setUsesScrollButtons(true);
  }
}

QSize sizeWithinScreen(const QWidget* window, QSize wanted) {
  const QScreen* screen = window->screen();
  if (screen == nullptr) screen = QGuiApplication::primaryScreen();
  if (screen == nullptr) return wanted;
  QSize room = screen->availableGeometry().size();
  // The window manager's frame, once the window has one (0 before the first show).
  const QSize frame = window->frameGeometry().size() - window->geometry().size();
  room -= frame.expandedTo(QSize(0, 0));
  return wanted.boundedTo(room);
}

}  // namespace tomowb::gui
