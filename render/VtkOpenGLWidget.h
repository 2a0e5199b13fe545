// VtkOpenGLWidget: a Qt 6 QOpenGLWidget that hosts a vtkGenericOpenGLRenderWindow. Debian 12's
// QVTKOpenGLNativeWidget is built for Qt 5 and must never be loaded next to Qt 6, so this is our
// own adapter (the sequence is in ../shared/reference/dependencies.md, section 3): the widget owns
// the GL context, VTK renders into its own framebuffer, and paintGL blits that into the widget's
// framebuffer. Mouse, wheel, key, enter/leave and resize events are forwarded to the VTK
// interactor, so any vtkInteractorStyle or vtkContextView works inside it.
//
// Call configureDefaultSurfaceFormat() before the QApplication is created.
#pragma once

#include <vtkSmartPointer.h>

#include <QOpenGLWidget>
#include <QTimer>
#include <map>
#include <string>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkRenderer;

namespace tomowb::render {

class VtkOpenGLWidget : public QOpenGLWidget {
  Q_OBJECT

 public:
  explicit VtkOpenGLWidget(QWidget* parent = nullptr);
  ~VtkOpenGLWidget() override;
  VtkOpenGLWidget(const VtkOpenGLWidget&) = delete;
  VtkOpenGLWidget& operator=(const VtkOpenGLWidget&) = delete;

  // OpenGL 3.2 core, double buffered, depth 24, no multisampling; and xcb + GLX, because Debian's
  // VTK 9.1 (GLEW) cannot initialise on EGL. Call once before constructing the QApplication.
  static void configureDefaultSurfaceFormat();
  // Empty when this display gives an OpenGL context of the default format (3.2 core), else why
  // not ("the display offers no OpenGL (GLX or EGL)"). Call after QApplication exists.
  static QString openGlProblem();

  vtkGenericOpenGLRenderWindow* renderWindow() const;
  vtkGenericRenderWindowInteractor* interactor() const;
  // A renderer created with the widget and added to its window (views may add more).
  vtkRenderer* renderer() const;

  // Asks for a VTK render at the next paint (cheap to call often: Qt coalesces updates), or at
  // the paint after the views asked before it have rendered (kRenderTurnTimeoutMs). While
  // another widget is being dragged (setInteractiveWidget), the render waits up to
  // kFollowerRenderMs, so that the dragged view keeps its frame rate.
  void requestRender();
  // The widget a window/level drag is on (nullptr when none): the views that follow it (the
  // other slices, the 3-D view, the histogram) are drawn at most every kFollowerRenderMs while it
  // lasts, and at once when it ends. Through software OpenGL each of them took 7 to 20 ms of
  // every frame of a drag (issue #21, point 11).
  // A follower that takes longer to render waits longer, so that each takes at most
  // kFollowerShare of the drag's time (through software OpenGL a 3-D view's 12 ms render waits
  // 300 ms), and the followers' renders are staggered by a quarter period, not all in one frame.
  static void setInteractiveWidget(VtkOpenGLWidget* widget);
  static constexpr int kFollowerRenderMs = 100;
  // Outside a drag, views asked to render at the same time take turns: one VTK render per frame
  // (a frame of its own for each), in the order asked. A turn whose paint does not come within
  // kRenderTurnTimeoutMs (a view covered by another) passes to the next view.
  static constexpr int kRenderTurnTimeoutMs = 100;
  static constexpr double kFollowerShare = 0.02;
  // True once a widget found OpenGL to be a software rasteriser (Mesa llvmpipe/softpipe): views
  // then choose cheaper renderings (the 3-D view renders a smaller copy of the volume).
  static bool softwareRendering();
  // GL_RENDERER and GL_VENDOR of the first widget's context ("" before one was made): what
  // `tomowb --measure` reports beside its frame rates.
  static std::string rendererName();

  // Renders now (synchronously) and returns the widget's content, for screenshots and tests.
  QImage grabImage();

 signals:
  // Emitted after each VTK render reached the widget (tests wait on it).
  void rendered();

 protected:
  void initializeGL() override;
  void resizeGL(int width, int height) override;
  void paintGL() override;

  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void enterEvent(QEnterEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  void finalizeVtkContext();
  void takeRenderTurn();         // renders at the next paint, the other views waiting
  static void passRenderTurn();  // the next waiting view's turn
  void forwardMouse(const QPointF& position, Qt::KeyboardModifiers modifiers, unsigned long event,
                    int repeat = 0);
  void forwardKey(QKeyEvent* event, unsigned long vtkEvent);
  void onVtkTimerCreate(unsigned long eventId, void* callData);
  void onVtkTimerDestroy(void* callData);
  int deviceWidth() const;
  int deviceHeight() const;

  vtkSmartPointer<vtkGenericOpenGLRenderWindow> window_;
  vtkSmartPointer<vtkGenericRenderWindowInteractor> interactor_;
  vtkSmartPointer<vtkRenderer> renderer_;
  bool renderNeeded_ = true;
  bool insidePaint_ = false;
  bool contextReady_ = false;
  QMetaObject::Connection contextConnection_;
  std::map<int, QTimer*> vtkTimers_;  // VTK timer id -> its Qt timer (animated styles)
  QTimer* followerRender_ = nullptr;  // a deferred render while another widget is dragged
  double lastRenderMs_ = 0;           // how long its last VTK render took
};

}  // namespace tomowb::render
