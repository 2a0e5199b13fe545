// WheelGuard (issue #21 point 6): in the main window's Algorithm dock, the mouse wheel over a
// combo or spin box that has no focus leaves its value alone and scrolls the panel; once the user
// has clicked into it, the wheel changes it. Scroll bars keep taking the wheel.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QTest>

#include "gui/DockLayout.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/WheelGuard.h"
#include "gui/core/DemoData.h"
#include "gui/core/Workspace.h"
#include "support/GuiTestWait.h"

namespace tomowb::gui {
namespace {

// One notch of the wheel over the middle of `widget` (downwards for a negative `notches`).
void wheel(QWidget* widget, int notches) {
  const QPointF local(widget->width() / 2.0, widget->height() / 2.0);
  QWheelEvent event(local, widget->mapToGlobal(local), QPoint(), QPoint(0, 120 * notches),
                    Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(widget, &event);
}

class WheelGuardTest : public testing::Test {
 protected:
  void SetUp() override {
    initResources();
    QSettings().clear();
  }
  void TearDown() override { QSettings().clear(); }
};

TEST_F(WheelGuardTest, SpinBoxesCombosAndSlidersTakeNoFocusFromTheWheel) {
  WheelGuard::install();
  QWidget panel;
  auto* combo = new QComboBox(&panel);
  auto* spin = new QDoubleSpinBox(&panel);
  auto* slider = new QSlider(&panel);
  auto* bar = new QScrollBar(&panel);
  EXPECT_EQ(combo->focusPolicy(), Qt::WheelFocus) << "Qt's default changed: the test is moot";
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  for (QWidget* w :
       {static_cast<QWidget*>(combo), static_cast<QWidget*>(spin), static_cast<QWidget*>(slider)})
    EXPECT_EQ(w->focusPolicy(), Qt::StrongFocus) << w->metaObject()->className();
  EXPECT_TRUE(WheelGuard::guards(slider));
  EXPECT_FALSE(WheelGuard::guards(bar)) << "scroll bars must keep the wheel";
}

TEST_F(WheelGuardTest, WheelOverAnUnfocusedComboScrollsTheAlgorithmPanelAndAFocusedOneChanges) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QSignalSpy loaded(&window.workspace(), &Workspace::projectionsChanged);
  window.openDemo(DemoKind::SheppLogan, 32);
  ASSERT_TRUE(loaded.wait(30000)) << "the demo did not load";
  // A window short enough for the algorithm panel to scroll.
  window.resize(window.width(), window.minimumSizeHint().height());
  auto* dock = window.findChild<QDockWidget*>(QStringLiteral("algorithmDock"));
  ASSERT_NE(dock, nullptr);
  QScrollArea* area = panelScrollArea(dock);
  ASSERT_NE(area, nullptr);
  ASSERT_TRUE(test::waitFor([&] { return area->verticalScrollBar()->maximum() > 0; }))
      << "the algorithm panel does not scroll in a short window: the test cannot tell";
  auto* combo = dock->findChild<QComboBox*>(QStringLiteral("algorithmCombo"));
  auto* voxel = dock->findChild<QDoubleSpinBox*>(QStringLiteral("voxelSize"));
  ASSERT_NE(combo, nullptr);
  ASSERT_NE(voxel, nullptr);
  ASSERT_GE(combo->count(), 2);
  combo->setCurrentIndex(0);
  combo->clearFocus();
  voxel->clearFocus();
  ASSERT_FALSE(combo->hasFocus());
  ASSERT_FALSE(voxel->hasFocus());

  const int index = combo->currentIndex();
  const double voxelSize = voxel->value();
  area->verticalScrollBar()->setValue(0);
  wheel(combo, -1);
  EXPECT_EQ(combo->currentIndex(), index) << "the wheel changed an unfocused combo";
  EXPECT_GT(area->verticalScrollBar()->value(), 0) << "the panel did not scroll";
  wheel(voxel, -1);
  EXPECT_DOUBLE_EQ(voxel->value(), voxelSize) << "the wheel changed an unfocused spin box";

  // Clicked into (the popup that opens closed again): the combo has focus and takes the wheel.
  area->verticalScrollBar()->setValue(0);
  window.activateWindow();
  QApplication::setActiveWindow(&window);
  QTest::mouseClick(combo, Qt::LeftButton);
  combo->hidePopup();
  ASSERT_TRUE(test::waitFor([&] { return combo->hasFocus(); })) << "the click gave no focus";
  wheel(combo, -1);
  EXPECT_EQ(combo->currentIndex(), index + 1) << "a focused combo ignored the wheel";
  EXPECT_EQ(area->verticalScrollBar()->value(), 0) << "a focused combo's wheel scrolled the panel";
}

}  // namespace
}  // namespace tomowb::gui
