// DockLayout: what keeps the main window's docks fitting their screen (issue #21 point 3,
// ux-review-2026-11.md section 5 "Small window").
//  - PanelScrollArea: the scroll area a dock holds its panel in. It never scrolls sideways: its
//    minimum width is the panel's minimum width (plus a vertical scroll bar), so a dock can never
//    be made narrower than its controls and cut them; a tall panel scrolls vertically.
//  - DockSizeKeeper: remembers the side docks' widths and the bottom docks' heights as the
//    default layout or the user made them (separator drags, re-docking) and gives them back when
//    the window grows again (after shrinking the window to its minimum, Qt leaves every dock at
//    its minimum).
//  - fitAlgorithmDock: the algorithm dock as tall as its panel in the default layout.
//  - sizeStackByCurrentPage: the central stack as small as the page it shows.
//  - sizeWithinScreen: a window size clamped to the available geometry of the window's screen.
#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QScrollArea>
#include <QSize>

class QDockWidget;
class QMainWindow;
class QStackedWidget;

namespace tomowb::gui {

class PanelScrollArea : public QScrollArea {
  Q_OBJECT

 public:
  // fitWidth = false: a panel that may scroll sideways (the bottom row's tables), at Qt's
  // usual small minimum width.
  explicit PanelScrollArea(QWidget* parent = nullptr, bool fitWidth = true);
  QSize minimumSizeHint() const override;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // Combos sized to their longest item (Qt's default) would set the panel's minimum width: they
  // shrink to a dozen characters instead (their popups still show whole items); form rows wrap
  // (the field under its label) rather than widen the panel.
  void relaxComboWidths();

  bool fitWidth_;
};

class DockSizeKeeper : public QObject {
  Q_OBJECT

 public:
  explicit DockSizeKeeper(QMainWindow* window);

  // Takes the docks' current widths (side docks) and heights (bottom docks) as the ones to keep.
  void remember();
  // Gives docks narrower (shorter) than their kept size that size back, as far as the window has
  // room. Called on its own when the window grows.
  void restore();
  // The kept size of a dock (its width for a side dock, height for a bottom one); 0: none.
  int keptSize(const QDockWidget* dock) const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // The docks' sizes as they are now, without running the window's layout first.
  void takeSizes();

  QMainWindow* window_;
  QHash<const QDockWidget*, int> kept_;
  QSize lastSize_;
  bool restoring_ = false;
};

// Only the page shown counts for the stack's minimum size (QStackedWidget takes the largest
// minimum of all its pages: the compare view's would widen the window with the slice views shown).
void sizeStackByCurrentPage(QStackedWidget* stack);

// Gives `dock` the height its whole panel needs (no vertical scrolling) and `below`, the dock
// under it in the same column, the rest; when the column cannot hold both, `below` and its tabs
// join `dock`'s tab group behind it.
void fitAlgorithmDock(QMainWindow& window, QDockWidget* dock, QDockWidget* below);

// Puts `footer` under the scroll area `dock` holds its panel in, outside it: the footer (Run)
// shows at the dock's foot however far the panel scrolls, on any screen.
void pinUnderScrollArea(QDockWidget* dock, QWidget* footer);
// The scroll area a dock holds its panel in (its widget, or above a pinned footer); nullptr when
// it holds none.
QScrollArea* panelScrollArea(const QDockWidget* dock);

// Screens narrower than this (logical px) get one dock column (MainWindow::sizeDocks): the left
// column's docks join the right one's as tabs, and the views keep a useful width. Two columns at
// their widths (about 350 px each) beside views of about 500 px need 1200.
constexpr int kTwoDockColumnsScreenWidth = 1200;

// The tab bars of the window's tabified docks show whole titles ("Algorithm", not "A…"), with
// scroll buttons where they do not all fit. QMainWindow makes a tab bar per tab group: call it
// again after docks were tabified (MainWindow does on every dock's dockLocationChanged).
void showWholeDockTabTitles(QMainWindow& window);

// `wanted` made to fit the available geometry of `window`'s screen (less the frame the window
// manager adds, when known).
QSize sizeWithinScreen(const QWidget* window, QSize wanted);

}  // namespace tomowb::gui
