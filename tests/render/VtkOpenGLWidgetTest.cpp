// The Qt 6 <-> VTK adapter: VTK's rendering reaches the widget, follows resizes, and interaction
// events reach VTK's interactor.
#include <gtest/gtest.h>
#include <vtkActor.h>
#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkNew.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkSphereSource.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QImage>
#include <QTest>
#include <set>
#include <vector>

#include "render/VtkOpenGLWidget.h"

namespace tomowb::render {
namespace {

// Fraction of pixels that are (close to) pure red.
double redFraction(const QImage& image) {
  std::int64_t red = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (c.red() > 200 && c.green() < 60 && c.blue() < 60) ++red;
    }
  return static_cast<double>(red) / (image.width() * image.height());
}

void addRedSphere(VtkOpenGLWidget& widget) {
  vtkNew<vtkSphereSource> sphere;
  sphere->SetRadius(1.0);
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputConnection(sphere->GetOutputPort());
  vtkNew<vtkActor> actor;
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(1, 0, 0);
  actor->GetProperty()->SetAmbient(1.0);
  actor->GetProperty()->SetDiffuse(0.0);
  widget.renderer()->AddActor(actor);
  widget.renderer()->SetBackground(0, 0, 1);
  widget.renderer()->ResetCamera();
}

// `count` widgets side by side in `window`, each showing a red sphere; the window is shown.
std::vector<VtkOpenGLWidget*> rowOfSpheres(QWidget& window, int count) {
  auto* row = new QHBoxLayout(&window);
  std::vector<VtkOpenGLWidget*> widgets;
  for (int i = 0; i < count; ++i) {
    auto* w = new VtkOpenGLWidget(&window);
    w->setMinimumSize(120, 120);
    addRedSphere(*w);
    row->addWidget(w);
    widgets.push_back(w);
  }
  window.show();
  return widgets;
}

TEST(VtkOpenGLWidget, VtkRenderingReachesTheWidget) {
  VtkOpenGLWidget widget;
  widget.resize(400, 300);
  addRedSphere(widget);
  widget.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&widget));
  const QImage image = widget.grabImage();
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.width(), 400);
  const double red = redFraction(image);
  EXPECT_GT(red, 0.05) << "the sphere is not visible";
  EXPECT_LT(red, 0.9) << "the blue background is not visible";
  // All four corners are background: VTK drew the whole widget, not a stale framebuffer.
  for (const QPoint corner :
       {QPoint(2, 2), QPoint(image.width() - 3, 2), QPoint(2, image.height() - 3),
        QPoint(image.width() - 3, image.height() - 3)}) {
    const QColor c = image.pixelColor(corner);
    EXPECT_TRUE(c.blue() > 200 && c.red() < 40 && c.green() < 40)
        << "corner " << corner.x() << "," << corner.y() << " is not the blue background";
  }
}

TEST(VtkOpenGLWidget, FollowsResizes) {
  VtkOpenGLWidget widget;
  widget.resize(200, 150);
  addRedSphere(widget);
  widget.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&widget));
  (void)widget.grabImage();
  widget.resize(400, 300);
  QApplication::processEvents();
  const QImage image = widget.grabImage();
  EXPECT_EQ(image.width(), 400);
  const int* size = widget.renderWindow()->GetSize();
  EXPECT_EQ(size[0], static_cast<int>(std::lround(400 * widget.devicePixelRatioF())));
  // The whole widget is drawn: the far corner is background, and the sphere is still there.
  const QColor far = image.pixelColor(image.width() - 3, image.height() - 3);
  EXPECT_TRUE(far.blue() > 200 && far.red() < 40) << "far corner is not background";
  EXPECT_GT(redFraction(image), 0.05);
}

TEST(VtkOpenGLWidget, ForwardsMouseEventsToTheInteractor) {
  VtkOpenGLWidget widget;
  widget.resize(200, 150);
  widget.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&widget));
  int presses = 0;
  int lastY = -1;
  vtkNew<vtkCallbackCommand> observer;
  struct Seen {
    int* presses;
    int* lastY;
  } seen{&presses, &lastY};
  observer->SetClientData(&seen);
  observer->SetCallback([](vtkObject* caller, unsigned long, void* data, void*) {
    auto* s = static_cast<Seen*>(data);
    ++*s->presses;
    *s->lastY = static_cast<vtkRenderWindowInteractor*>(caller)->GetEventPosition()[1];
  });
  widget.interactor()->AddObserver(vtkCommand::LeftButtonPressEvent, observer);
  QTest::mousePress(&widget, Qt::LeftButton, Qt::NoModifier, QPoint(50, 140));
  QTest::mouseRelease(&widget, Qt::LeftButton, Qt::NoModifier, QPoint(50, 140));
  EXPECT_EQ(presses, 1);
  // VTK's y axis points up: 10 pixels from the bottom edge.
  EXPECT_NEAR(lastY, std::lround((150 - 1 - 140) * widget.devicePixelRatioF()), 1);
}

// A window/level drag (issue #21, point 11): while one widget is dragged, the widgets that follow
// it render at most every kFollowerRenderMs (longer when their render is slow), not all in the
// same frame, and each at once when the drag ends; the dragged one renders with every request.
TEST(VtkOpenGLWidget, FollowersOfADragRenderRarelyInDifferentFramesAndAtItsEnd) {
  QWidget window;
  const std::vector<VtkOpenGLWidget*> widgets = rowOfSpheres(window, 5);
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  for (VtkOpenGLWidget* w : widgets) (void)w->grabImage();  // each knows its render time
  VtkOpenGLWidget& dragged = *widgets.front();
  std::vector<int> renders(widgets.size(), 0), firstFrame(widgets.size(), -1);
  int frame = 0;
  for (std::size_t i = 0; i < widgets.size(); ++i)
    QObject::connect(widgets[i], &VtkOpenGLWidget::rendered, &window, [&, i] {
      ++renders[i];
      if (firstFrame[i] < 0) firstFrame[i] = frame;
    });
  VtkOpenGLWidget::setInteractiveWidget(&dragged);
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 400) {  // moves of a drag: every view asks for a render
    ++frame;
    for (VtkOpenGLWidget* w : widgets) w->requestRender();
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    QTest::qWait(4);
  }
  const double dragMs = static_cast<double>(clock.elapsed());
  EXPECT_GE(renders[0], frame / 2)
      << "the dragged view skipped frames: " << renders[0] << " of " << frame;
  std::set<int> followerFrames;
  for (std::size_t i = 1; i < widgets.size(); ++i) {
    EXPECT_LE(renders[i], dragMs / VtkOpenGLWidget::kFollowerRenderMs + 1)
        << "follower " << i << " rendered " << renders[i] << " times in " << dragMs << " ms";
    if (firstFrame[i] >= 0) followerFrames.insert(firstFrame[i]);
  }
  EXPECT_GE(followerFrames.size(), 3u) << "the followers rendered in the same frames";
  // The drag ends: every follower shows its last state now, not a period later.
  for (VtkOpenGLWidget* w : widgets) w->requestRender();
  std::vector<int> before = renders;
  VtkOpenGLWidget::setInteractiveWidget(nullptr);
  QElapsedTimer ended;
  ended.start();
  while (ended.elapsed() < 30) {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
  }
  for (std::size_t i = 1; i < widgets.size(); ++i)
    EXPECT_GT(renders[i], before[i]) << "follower " << i << " did not render at the drag's end";
}

// Counts the window's paints (UpdateRequest: one composed frame each).
class FrameCounter : public QObject {
 public:
  int frames = 0;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::UpdateRequest) ++frames;
    return QObject::eventFilter(watched, event);
  }
};

// A live preview asks every view to render at once (issue #21, point 11): outside a drag they
// take turns, one VTK render per frame, in the order asked, and all of them soon.
TEST(VtkOpenGLWidget, ViewsAskedAtOnceRenderOnePerFrameInTheOrderAsked) {
  QWidget window;
  const std::vector<VtkOpenGLWidget*> widgets = rowOfSpheres(window, 5);
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  for (VtkOpenGLWidget* w : widgets) (void)w->grabImage();  // each knows its render time
  QTest::qWait(50);                                         // the first paints are over
  FrameCounter counter;
  window.installEventFilter(&counter);
  std::vector<int> frameOf(widgets.size(), -1);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < widgets.size(); ++i)
    QObject::connect(widgets[i], &VtkOpenGLWidget::rendered, &window, [&, i] {
      if (frameOf[i] < 0) order.push_back(i);
      frameOf[i] = counter.frames;
    });
  for (VtkOpenGLWidget* w : widgets) w->requestRender();
  QElapsedTimer clock;
  clock.start();
  while (order.size() < widgets.size() && clock.elapsed() < 2000) QTest::qWait(5);
  ASSERT_EQ(order.size(), widgets.size()) << "not every view rendered within 2 s";
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4})) << "not in the order asked";
  const std::set<int> frames(frameOf.begin(), frameOf.end());
  EXPECT_EQ(frames.size(), widgets.size()) << "two views rendered in the same frame";
  EXPECT_LT(clock.elapsed(), 5 * VtkOpenGLWidget::kRenderTurnTimeoutMs)
      << "the turns waited for the watchdog instead of the paints";
}

}  // namespace
}  // namespace tomowb::render
