// VtkOpenGLWidget: see the header. The order of calls follows the sequence recorded in
// ../shared/reference/dependencies.md, section 3; each step says why it is there.
#include "render/VtkOpenGLWidget.h"

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyle.h>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLState.h>
#include <vtkRenderer.h>

#include <QCoreApplication>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QPointer>
#include <QSurfaceFormat>
#include <QWheelEvent>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "render/EventTrace.h"

namespace tomowb::render {

namespace {

// VTK observers are plain callbacks; they reach the widget through the client data.
void onMakeCurrent(vtkObject*, unsigned long, void* clientData, void*) {
  // The context only, never QOpenGLWidget::makeCurrent(): that also binds Qt's framebuffer
  // behind VTK's state cache, and VTK then attaches its textures to Qt's framebuffer.
  auto* widget = static_cast<VtkOpenGLWidget*>(clientData);
  QOpenGLContext* context = widget->context();
  if (context != nullptr && QOpenGLContext::currentContext() != context)
    context->makeCurrent(context->surface());
}

void onIsCurrent(vtkObject*, unsigned long, void* clientData, void* callData) {
  auto* widget = static_cast<VtkOpenGLWidget*>(clientData);
  QOpenGLContext* context = widget->context();
  *static_cast<bool*>(callData) = context != nullptr &&
                                  QOpenGLContext::currentContext() == context &&
                                  context->surface() == QOpenGLContext::currentContext()->surface();
}

// VTK's event for a press or release of a Qt mouse button; 0 for buttons VTK does not know.
unsigned long vtkButtonEvent(Qt::MouseButton button, bool press) {
  switch (button) {
    case Qt::LeftButton:
      return press ? vtkCommand::LeftButtonPressEvent : vtkCommand::LeftButtonReleaseEvent;
    case Qt::MiddleButton:
      return press ? vtkCommand::MiddleButtonPressEvent : vtkCommand::MiddleButtonReleaseEvent;
    case Qt::RightButton:
      return press ? vtkCommand::RightButtonPressEvent : vtkCommand::RightButtonReleaseEvent;
    default:
      return 0;
  }
}

}  // namespace

void VtkOpenGLWidget::configureDefaultSurfaceFormat() {
  // EGL (xcb_egl, native Wayland) makes Debian's VTK GLEW fail: force xcb + GLX unless the user
  // chose a platform (offscreen test runs, for example).
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) qputenv("QT_QPA_PLATFORM", "xcb");
  if (std::getenv("QT_XCB_GL_INTEGRATION") == nullptr) qputenv("QT_XCB_GL_INTEGRATION", "xcb_glx");
  QSurfaceFormat format;
  format.setRenderableType(QSurfaceFormat::OpenGL);
  format.setVersion(3, 2);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
  format.setRedBufferSize(8);
  format.setGreenBufferSize(8);
  format.setBlueBufferSize(8);
  format.setAlphaBufferSize(8);
  format.setDepthBufferSize(24);
  format.setStencilBufferSize(0);
  format.setSamples(0);
  QSurfaceFormat::setDefaultFormat(format);
}

QString VtkOpenGLWidget::openGlProblem() {
  QOpenGLContext context;
  context.setFormat(QSurfaceFormat::defaultFormat());
  if (!context.create())
    return QStringLiteral("the display (Qt platform '%1') offers no OpenGL (no GLX or EGL)")
        .arg(QGuiApplication::platformName());
  QOffscreenSurface surface;
  surface.setFormat(context.format());
  surface.create();
  if (!surface.isValid() || !context.makeCurrent(&surface))
    return QStringLiteral("an OpenGL context was created but cannot draw (Qt platform '%1')")
        .arg(QGuiApplication::platformName());
  const QSurfaceFormat got = context.format();
  context.doneCurrent();
  if (got.version() < qMakePair(3, 2))
    return QStringLiteral("the display offers OpenGL %1.%2 only")
        .arg(got.majorVersion())
        .arg(got.minorVersion());
  return {};
}

VtkOpenGLWidget::VtkOpenGLWidget(QWidget* parent) : QOpenGLWidget(parent) {
  setUpdateBehavior(QOpenGLWidget::NoPartialUpdate);
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);  // voxel value under the cursor without a button pressed
  setMinimumSize(64, 64);

  window_ = vtkSmartPointer<vtkGenericOpenGLRenderWindow>::New();
  // Not ready until initializeGL gives us a context: VTK renders are no-ops before that (the flag
  // must be set before the interactor is initialised, which would otherwise render).
  window_->SetReadyForRendering(false);
  window_->SetFrameBlitModeToNoBlit();
  window_->SetMultiSamples(0);
  interactor_ = vtkSmartPointer<vtkGenericRenderWindowInteractor>::New();
  // Renders asked for by interactor styles become requestRender() (the RenderEvent observer
  // below) and happen in paintGL, where the context is current.
  interactor_->EnableRenderOff();
  window_->SetInteractor(interactor_);
  interactor_->Initialize();
  renderer_ = vtkSmartPointer<vtkRenderer>::New();
  window_->AddRenderer(renderer_);

  auto addObserver = [this](vtkObject* object, unsigned long event,
                            void (*callback)(vtkObject*, unsigned long, void*, void*)) {
    vtkNew<vtkCallbackCommand> command;
    command->SetCallback(callback);
    command->SetClientData(this);
    return object->AddObserver(event, command);
  };
  addObserver(window_, vtkCommand::WindowMakeCurrentEvent, &onMakeCurrent);
  addObserver(window_, vtkCommand::WindowIsCurrentEvent, &onIsCurrent);
  // A render started by VTK itself (an interactor style after a drag) must reach the screen.
  addObserver(window_, vtkCommand::WindowFrameEvent,
              [](vtkObject*, unsigned long, void* self, void*) {
                auto* widget = static_cast<VtkOpenGLWidget*>(self);
                if (!widget->insidePaint_) {
                  widget->renderNeeded_ = true;
                  widget->update();
                }
              });
  addObserver(interactor_, vtkCommand::RenderEvent,
              [](vtkObject*, unsigned long, void* self, void*) {
                static_cast<VtkOpenGLWidget*>(self)->requestRender();
              });
  // Animated styles (joystick, auto-rotate) use timers: bridge them to QTimers.
  auto* timerCommand = vtkCallbackCommand::New();
  timerCommand->SetClientData(this);
  timerCommand->SetCallback([](vtkObject*, unsigned long eventId, void* self, void* callData) {
    auto* widget = static_cast<VtkOpenGLWidget*>(self);
    if (eventId == vtkCommand::CreateTimerEvent)
      widget->onVtkTimerCreate(eventId, callData);
    else
      widget->onVtkTimerDestroy(callData);
  });
  interactor_->AddObserver(vtkCommand::CreateTimerEvent, timerCommand);
  interactor_->AddObserver(vtkCommand::DestroyTimerEvent, timerCommand);
  timerCommand->Delete();
}

VtkOpenGLWidget::~VtkOpenGLWidget() {
  QObject::disconnect(contextConnection_);
  // Release VTK's GL resources while our context still exists.
  if (contextReady_ && context() != nullptr) {
    makeCurrent();
    finalizeVtkContext();
    doneCurrent();
  }
  for (auto& [id, timer] : vtkTimers_) delete timer;
  vtkTimers_.clear();
  interactor_->RemoveAllObservers();
  window_->RemoveAllObservers();
}

vtkGenericOpenGLRenderWindow* VtkOpenGLWidget::renderWindow() const {
  return window_;
}
vtkGenericRenderWindowInteractor* VtkOpenGLWidget::interactor() const {
  return interactor_;
}
vtkRenderer* VtkOpenGLWidget::renderer() const {
  return renderer_;
}

namespace {
QPointer<VtkOpenGLWidget>& interactiveWidget() {  // GUI thread only
  static QPointer<VtkOpenGLWidget> widget;
  return widget;
}
std::vector<QPointer<VtkOpenGLWidget>>& deferredWidgets() {  // waiting for the drag's end
  static std::vector<QPointer<VtkOpenGLWidget>> widgets;
  return widgets;
}
}  // namespace

void VtkOpenGLWidget::setInteractiveWidget(VtkOpenGLWidget* widget) {
  interactiveWidget() = widget;
  if (widget != nullptr) return;
  // The drag is over: the followers show its last state now.
  for (const QPointer<VtkOpenGLWidget>& w : deferredWidgets()) {
    if (!w) continue;
    if (w->followerRender_ != nullptr) w->followerRender_->stop();
    if (w->renderNeeded_) w->update();
  }
  deferredWidgets().clear();
}

namespace {
// kFollowerRenderMs, or TOMOWB_FOLLOWER_RENDER_MS (0: the followers render with every move, as
// before; for comparing the two in bench/results).
int followerRenderMs() {
  static const int ms = [] {
    const char* text = std::getenv("TOMOWB_FOLLOWER_RENDER_MS");  // NOLINT(concurrency-mt-unsafe)
    return text != nullptr ? std::max(0, std::atoi(text)) : VtkOpenGLWidget::kFollowerRenderMs;
  }();
  return ms;
}
}  // namespace

namespace {
// Whether views take turns (kOneRenderPerFrame), or TOMOWB_ONE_RENDER_PER_FRAME=0: every view asked
// to render draws in the same frame, as before (for comparing the two in bench/results).
bool oneRenderPerFrame() {
  static const bool on = [] {
    const char* text = std::getenv("TOMOWB_ONE_RENDER_PER_FRAME");  // NOLINT(concurrency-mt-unsafe)
    return text == nullptr || std::atoi(text) != 0;
  }();
  return on;
}

// The views' turns (GUI thread only): the one whose frame is under way, and those waiting.
struct RenderTurns {
  QPointer<VtkOpenGLWidget> current;
  std::deque<QPointer<VtkOpenGLWidget>> waiting;
  // Ends a turn whose paint never comes (a hidden or covered view). Owned by the application,
  // so a QPointer: gone with it.
  QPointer<QTimer> watchdog;
};
RenderTurns& renderTurns() {
  static RenderTurns turns;
  return turns;
}
}  // namespace

void VtkOpenGLWidget::takeRenderTurn() {
  RenderTurns& turns = renderTurns();
  turns.current = this;
  if (turns.watchdog.isNull()) {
    // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): lives as long as the application
    turns.watchdog = new QTimer(QCoreApplication::instance());
    turns.watchdog->setSingleShot(true);
    QObject::connect(turns.watchdog, &QTimer::timeout, [] { passRenderTurn(); });
  }
  turns.watchdog->start(kRenderTurnTimeoutMs);
  update();
}

void VtkOpenGLWidget::passRenderTurn() {
  RenderTurns& turns = renderTurns();
  turns.current = nullptr;
  if (!turns.watchdog.isNull()) turns.watchdog->stop();
  while (!turns.waiting.empty()) {
    QPointer<VtkOpenGLWidget> next = turns.waiting.front();
    turns.waiting.pop_front();
    if (next && next->renderNeeded_ && next->isVisible()) {
      next->takeRenderTurn();
      return;
    }
    if (next && next->renderNeeded_) next->update();
  }
}

void VtkOpenGLWidget::requestRender() {
  renderNeeded_ = true;
  const VtkOpenGLWidget* dragged = interactiveWidget().data();
  if (dragged == nullptr && oneRenderPerFrame() && isVisible()) {
    // Views asked to render at once (a live preview reaching three slices, the 3-D view, the
    // histogram strip and the charts) draw one per frame, in the order asked, so that no frame
    // carries all of them: through software OpenGL together they held the window 60 to 100 ms.
    RenderTurns& turns = renderTurns();
    if (!turns.current || turns.current == this) {
      takeRenderTurn();
    } else if (std::find(turns.waiting.begin(), turns.waiting.end(), this) == turns.waiting.end()) {
      turns.waiting.emplace_back(this);
    }
    return;
  }
  if (dragged == nullptr || dragged == this || followerRenderMs() == 0) {
    update();
    return;
  }
  if (followerRender_ == nullptr) {
    // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): its Qt parent, the widget, owns it
    followerRender_ = new QTimer(this);
    followerRender_->setSingleShot(true);
    connect(followerRender_, &QTimer::timeout, this, [this] { update(); });
  }
  if (!followerRender_->isActive()) {
    // The first follower waits the least, the next ones a quarter period more each, so that
    // their renders fall into different frames of the drag; a follower slow to render (software
    // OpenGL) waits longer, so that it takes at most kFollowerShare of the drag's time.
    const int period = followerRenderMs();
    std::size_t waiting = 0;
    for (const QPointer<VtkOpenGLWidget>& w : deferredWidgets())
      if (w && w->followerRender_ != nullptr && w->followerRender_->isActive()) ++waiting;
    const int byCost = static_cast<int>(lastRenderMs_ / kFollowerShare);
    const int stagger = static_cast<int>(waiting % 4) * period / 4;
    followerRender_->start(std::max(period, byCost) + stagger);
    if (std::find(deferredWidgets().begin(), deferredWidgets().end(), this) ==
        deferredWidgets().end())
      deferredWidgets().emplace_back(this);
  }
}

QImage VtkOpenGLWidget::grabImage() {
  renderNeeded_ = true;
  return grabFramebuffer();  // calls paintGL on our context and reads the result back
}

int VtkOpenGLWidget::deviceWidth() const {
  // Qt sizes its framebuffer with rounding; truncating left a 1-pixel seam at dpr 1.25.
  return static_cast<int>(std::lround(width() * devicePixelRatioF()));
}
int VtkOpenGLWidget::deviceHeight() const {
  return static_cast<int>(std::lround(height() * devicePixelRatioF()));
}

namespace {
std::atomic<bool> softwareRenderer{false};
std::string& rendererNameText() {  // GUI thread only (initializeGL and its readers)
  static std::string name;
  return name;
}
}  // namespace

std::string VtkOpenGLWidget::rendererName() {
  return rendererNameText();
}

bool VtkOpenGLWidget::softwareRendering() {
  return softwareRenderer.load();
}

void VtkOpenGLWidget::initializeGL() {
  if (const auto* name =
          reinterpret_cast<const char*>(context()->functions()->glGetString(GL_RENDERER))) {
    const std::string renderer(name);
    if (rendererNameText().empty()) {
      const auto* vendor =
          reinterpret_cast<const char*>(context()->functions()->glGetString(GL_VENDOR));
      rendererNameText() = renderer + (vendor != nullptr ? std::string(" (") + vendor + ")" : "");
    }
    if (renderer.find("llvmpipe") != std::string::npos ||
        renderer.find("softpipe") != std::string::npos ||
        renderer.find("Software Rasterizer") != std::string::npos)
      softwareRenderer.store(true);
  }
  window_->SetOwnContext(0);
  window_->SetForceMaximumHardwareLineWidth(1);
  window_->SetReadyForRendering(true);
  window_->OpenGLInitContext();
  window_->GetState()->Reset();
  window_->GetState()->vtkglDepthFunc(GL_LEQUAL);  // Qt leaves GL_LESS
  contextReady_ = true;
  // A new context (the first, or another after the widget moved to another window: a dock
  // floated or docked again) has none of VTK's framebuffers, and Qt calls no resizeGL when the
  // size stayed: render before the next blit, or it copies an empty framebuffer (black charts
  // after re-docking, ux-review-2026-11.md section 5).
  renderNeeded_ = true;
  // The context goes away when the widget is reparented to another window (VTK's resources
  // must go first) or in QOpenGLWidget's destructor (ours has already released them and cut
  // this connection, since this object is no longer a VtkOpenGLWidget by then).
  QObject::disconnect(contextConnection_);
  contextConnection_ = connect(
      context(), &QOpenGLContext::aboutToBeDestroyed, this,
      [this] {
        makeCurrent();
        finalizeVtkContext();
      },
      Qt::DirectConnection);
}

void VtkOpenGLWidget::finalizeVtkContext() {
  if (!contextReady_) return;
  window_->Finalize();
  window_->SetReadyForRendering(false);
  contextReady_ = false;
}

void VtkOpenGLWidget::resizeGL(int, int) {
  const int w = deviceWidth(), h = deviceHeight();
  // Qt has just bound its new framebuffer behind VTK's state cache, and SetSize resizes VTK's
  // framebuffers at once: refresh the cache first, or VTK re-attaches its textures to whatever
  // it wrongly believes is bound (Qt's framebuffer), leaving its own incomplete.
  vtkOpenGLState* state = contextReady_ ? window_->GetState() : nullptr;
  if (state != nullptr) {
    state->Reset();
    state->Push();
  }
  interactor_->UpdateSize(w, h);
  window_->SetSize(w, h);
  window_->SetScreenSize(w, h);
  window_->SetDPI(static_cast<int>(std::lround(72 * devicePixelRatioF())));
  if (state != nullptr) state->Pop();
  renderNeeded_ = true;
}

void VtkOpenGLWidget::paintGL() {
  if (!contextReady_) return;
  insidePaint_ = true;
  vtkOpenGLState* state = window_->GetState();
  state->Reset();
  state->Push();
  state->vtkglDepthFunc(GL_LEQUAL);
  if (renderNeeded_) {
    renderNeeded_ = false;
    const EventTrace::Scope traced(
        EventTrace::enabled() ? std::string("render ") + metaObject()->className() : std::string());
    const auto began = std::chrono::steady_clock::now();
    window_->Render();  // renders into VTK's own framebuffers (the interactor's renders are off)
    lastRenderMs_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  }
  // defaultFramebufferObject() changes between calls (and is 0 in initializeGL): query it here.
  // Every GL call goes through VTK's state cache so that VTK's idea of the GL state stays true
  // (a raw glClearColor here once made VTK skip its own and clear the next frame black).
  state->vtkglBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  GLenum colour = GL_COLOR_ATTACHMENT0;
  state->vtkglDrawBuffers(1, &colour);
  state->vtkglDisable(GL_SCISSOR_TEST);
  int sourceSize[2] = {deviceWidth(), deviceHeight()};
  if (vtkOpenGLFramebufferObject* fbo = window_->GetRenderFramebuffer())
    fbo->GetLastSize(sourceSize);
  window_->BlitDisplayFramebuffer(0, 0, 0, sourceSize[0], sourceSize[1], 0, 0, deviceWidth(),
                                  deviceHeight(), GL_COLOR_BUFFER_BIT, GL_LINEAR);
  // Some compositors show a transparent window where alpha < 1: force it opaque.
  state->vtkglColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  state->vtkglClearColor(0, 0, 0, 1);
  state->vtkglClear(GL_COLOR_BUFFER_BIT);
  state->Pop();
  insidePaint_ = false;
  // This view's frame is drawn: the next waiting view renders in a frame of its own (a zero
  // timer: after this paint, so that Qt does not merge the two).
  if (renderTurns().current == this)
    QTimer::singleShot(0, QCoreApplication::instance(), [] { passRenderTurn(); });
  emit rendered();
}

void VtkOpenGLWidget::forwardMouse(const QPointF& position, Qt::KeyboardModifiers modifiers,
                                   unsigned long event, int repeat) {
  const double dpr = devicePixelRatioF();
  interactor_->SetEventInformationFlipY(static_cast<int>(position.x() * dpr),
                                        static_cast<int>(position.y() * dpr),
                                        (modifiers & Qt::ControlModifier) ? 1 : 0,
                                        (modifiers & Qt::ShiftModifier) ? 1 : 0, 0, repeat);
  interactor_->SetAltKey((modifiers & Qt::AltModifier) ? 1 : 0);
  interactor_->InvokeEvent(event);
}

void VtkOpenGLWidget::mousePressEvent(QMouseEvent* event) {
  if (const unsigned long vtkEvent = vtkButtonEvent(event->button(), true))
    forwardMouse(event->position(), event->modifiers(), vtkEvent);
  else
    QOpenGLWidget::mousePressEvent(event);
}

void VtkOpenGLWidget::mouseDoubleClickEvent(QMouseEvent* event) {
  // VTK sees a double click as a press with repeat = 1.
  if (const unsigned long vtkEvent = vtkButtonEvent(event->button(), true))
    forwardMouse(event->position(), event->modifiers(), vtkEvent, 1);
  else
    QOpenGLWidget::mouseDoubleClickEvent(event);
}

void VtkOpenGLWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (const unsigned long vtkEvent = vtkButtonEvent(event->button(), false))
    forwardMouse(event->position(), event->modifiers(), vtkEvent);
  else
    QOpenGLWidget::mouseReleaseEvent(event);
}

void VtkOpenGLWidget::mouseMoveEvent(QMouseEvent* event) {
  forwardMouse(event->position(), event->modifiers(), vtkCommand::MouseMoveEvent);
}

void VtkOpenGLWidget::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  if (delta == 0) return;
  forwardMouse(
      event->position(), event->modifiers(),
      delta > 0 ? vtkCommand::MouseWheelForwardEvent : vtkCommand::MouseWheelBackwardEvent);
  event->accept();
}

void VtkOpenGLWidget::enterEvent(QEnterEvent* event) {
  forwardMouse(event->position(), QGuiApplication::keyboardModifiers(), vtkCommand::EnterEvent);
}

void VtkOpenGLWidget::leaveEvent(QEvent*) {
  interactor_->InvokeEvent(vtkCommand::LeaveEvent);
}

void VtkOpenGLWidget::forwardKey(QKeyEvent* event, unsigned long vtkEvent) {
  const QPoint cursor = mapFromGlobal(QCursor::pos());
  const double dpr = devicePixelRatioF();
  const QString text = event->text();
  const char keyCode = text.isEmpty() ? '\0' : text.at(0).toLatin1();
  interactor_->SetEventInformationFlipY(
      static_cast<int>(cursor.x() * dpr), static_cast<int>(cursor.y() * dpr),
      (event->modifiers() & Qt::ControlModifier) ? 1 : 0,
      (event->modifiers() & Qt::ShiftModifier) ? 1 : 0, keyCode, event->isAutoRepeat() ? 1 : 0,
      text.isEmpty() ? nullptr : text.toLatin1().constData());
  interactor_->SetAltKey((event->modifiers() & Qt::AltModifier) ? 1 : 0);
  interactor_->InvokeEvent(vtkEvent);
  if (vtkEvent == vtkCommand::KeyPressEvent && keyCode != '\0')
    interactor_->InvokeEvent(vtkCommand::CharEvent);
}

void VtkOpenGLWidget::keyPressEvent(QKeyEvent* event) {
  forwardKey(event, vtkCommand::KeyPressEvent);
  QOpenGLWidget::keyPressEvent(event);  // let shortcuts and parents see it too
}

void VtkOpenGLWidget::keyReleaseEvent(QKeyEvent* event) {
  forwardKey(event, vtkCommand::KeyReleaseEvent);
  QOpenGLWidget::keyReleaseEvent(event);
}

void VtkOpenGLWidget::onVtkTimerCreate(unsigned long, void*) {
  // VTK sets the timer's id, type and duration on the interactor before CreateTimerEvent and
  // adds it to its own timer map only afterwards, so read them from the interactor (reading the
  // map made vtkContextInteractorStyle's 40 ms one-shot a 0 ms repeating timer: charts then
  // re-rendered hundreds of times a second).
  const int vtkId = interactor_->GetTimerEventId();
  const bool oneShot = interactor_->GetTimerEventType() == vtkRenderWindowInteractor::OneShotTimer;
  interactor_->SetTimerEventPlatformId(vtkId);
  auto* timer = new QTimer(this);
  timer->setSingleShot(oneShot);
  timer->setInterval(std::max(1, static_cast<int>(interactor_->GetTimerEventDuration())));
  connect(timer, &QTimer::timeout, this, [this, vtkId, oneShot] {
    int id = vtkId;
    interactor_->InvokeEvent(vtkCommand::TimerEvent, &id);
    // VTK keeps a one-shot timer in its map until it is destroyed: do that (and drop the QTimer).
    if (oneShot) interactor_->DestroyTimer(vtkId);
  });
  if (auto old = vtkTimers_.find(vtkId); old != vtkTimers_.end()) old->second->deleteLater();
  vtkTimers_[vtkId] = timer;
  timer->start();
}

void VtkOpenGLWidget::onVtkTimerDestroy(void* callData) {
  const int platformId = *static_cast<int*>(callData);
  auto it = vtkTimers_.find(platformId);
  if (it == vtkTimers_.end()) return;
  it->second->stop();
  it->second->deleteLater();  // this may run inside the timer's own timeout
  vtkTimers_.erase(it);
}

}  // namespace tomowb::render
