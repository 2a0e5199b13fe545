// EventTrace: see the header. The state is process-wide and touched on the GUI thread only.
#include "render/EventTrace.h"

#include <QCoreApplication>
#include <QThread>
#include <algorithm>

namespace tomowb::render {

namespace {

struct TraceState {
  bool enabled = false;
  int depth = 0;                                // event deliveries in progress
  int scopeDepth = 0;                           // scopes open inside the current top-level event
  std::vector<EventTrace::TracedScope> scopes;  // of the top-level event being delivered
  std::vector<EventTrace::TracedEvent> slowest;
  // The scope that sums the widgets painted by QPainter (not OpenGL) inside the current
  // top-level event, or npos; and whether such a paint is being delivered now.
  std::size_t rasterPaintSlot = static_cast<std::size_t>(-1);
  bool inRasterPaint = false;
};

TraceState& state() {
  static TraceState s;
  return s;
}

bool onGuiThread() {
  const QCoreApplication* app = QCoreApplication::instance();
  return app != nullptr && QThread::currentThread() == app->thread();
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Scopes under this are left out of a kept event (a frame holds many small ones).
constexpr double kSmallestKeptScopeMs = 0.5;

}  // namespace

void EventTrace::setEnabled(bool enabled) {
  state().enabled = enabled;
}

bool EventTrace::enabled() noexcept {
  return state().enabled;
}

void EventTrace::clear() {
  state().slowest.clear();
}

std::vector<EventTrace::TracedEvent> EventTrace::slowest() {
  return state().slowest;
}

EventTrace::Dispatch::Dispatch(const QObject* receiver, const QEvent* event) {
  TraceState& s = state();
  if (!s.enabled || !onGuiThread()) return;
  counted_ = true;
  timed_ = s.depth++ == 0;
  if (!timed_) {
    // A widget painted with QPainter inside a window's paint: summed into one scope, so that a
    // slow frame says how much of it was raster painting and how much composing (the rest).
    if (event != nullptr && event->type() == QEvent::Paint && !s.inRasterPaint &&
        receiver != nullptr && !receiver->inherits("QOpenGLWidget")) {
      rasterPaint_ = true;
      s.inRasterPaint = true;
      start_ = std::chrono::steady_clock::now();
    }
    return;
  }
  // Noted now: the receiver may be gone when the event ends (a deferred delete).
  className_ = receiver != nullptr ? receiver->metaObject()->className() : "";
  if (receiver != nullptr) objectName_ = receiver->objectName();
  eventType_ = event != nullptr ? static_cast<int>(event->type()) : 0;
  s.scopes.clear();
  s.scopeDepth = 0;
  s.rasterPaintSlot = static_cast<std::size_t>(-1);
  s.inRasterPaint = false;
  start_ = std::chrono::steady_clock::now();
}

EventTrace::Dispatch::~Dispatch() {
  if (!counted_) return;
  TraceState& s = state();
  --s.depth;
  if (rasterPaint_) {
    s.inRasterPaint = false;
    if (s.rasterPaintSlot >= s.scopes.size()) {
      s.rasterPaintSlot = s.scopes.size();
      s.scopes.push_back({"paint widgets (QPainter)", 0.0, 0});
    }
    s.scopes[s.rasterPaintSlot].ms += msSince(start_);
  }
  if (!timed_) return;
  const double ms = msSince(start_);
  std::vector<TracedEvent>& kept = s.slowest;
  if (kept.size() >= kKept && ms <= kept.back().ms) return;
  TracedEvent e;
  e.ms = ms;
  e.receiver = className_;
  if (!objectName_.isEmpty()) e.receiver += " '" + objectName_.toStdString() + "'";
  e.eventType = eventType_;
  for (const TracedScope& scope : s.scopes)
    if (scope.ms >= kSmallestKeptScopeMs) e.scopes.push_back(scope);
  kept.insert(std::upper_bound(kept.begin(), kept.end(), ms,
                               [](double value, const TracedEvent& k) { return value > k.ms; }),
              std::move(e));
  if (kept.size() > kKept) kept.pop_back();
}

EventTrace::Scope::Scope(std::string_view name) {
  TraceState& s = state();
  if (!s.enabled || s.depth == 0 || !onGuiThread()) return;
  active_ = true;
  slot_ = s.scopes.size();
  s.scopes.push_back({std::string(name), 0.0, s.scopeDepth++});
  start_ = std::chrono::steady_clock::now();
}

EventTrace::Scope::~Scope() {
  if (!active_) return;
  TraceState& s = state();
  --s.scopeDepth;
  // The event may have ended inside the scope (a nested event loop): then its list is gone.
  if (slot_ < s.scopes.size()) s.scopes[slot_].ms = msSince(start_);
}

std::string eventTypeName(int type) {
  switch (static_cast<QEvent::Type>(type)) {
    case QEvent::MetaCall:
      return "MetaCall (queued slot)";
    case QEvent::Timer:
      return "Timer";
    case QEvent::UpdateRequest:
      return "UpdateRequest (paint)";
    case QEvent::Paint:
      return "Paint";
    case QEvent::Resize:
      return "Resize";
    case QEvent::MouseMove:
      return "MouseMove";
    case QEvent::MouseButtonPress:
      return "MouseButtonPress";
    case QEvent::MouseButtonRelease:
      return "MouseButtonRelease";
    case QEvent::Wheel:
      return "Wheel";
    case QEvent::LayoutRequest:
      return "LayoutRequest";
    case QEvent::DeferredDelete:
      return "DeferredDelete";
    case QEvent::Expose:
      return "Expose";
    default:
      return "QEvent type " + std::to_string(type);
  }
}

}  // namespace tomowb::render
