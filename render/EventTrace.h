// EventTrace: where the GUI thread's time goes when the window stalls (the responsiveness
// benchmark of issue #21, point 11). While it is on, the application times every event it
// delivers at the top level (EventTrace::Dispatch, used by the application's notify()), and
// named scopes inside an event (EventTrace::Scope) note their own times; the widgets painted with
// QPainter inside a window's paint are summed into one scope, "paint widgets (QPainter)", so what
// no scope covers in a paint is mostly composing the window. The slowest events are
// kept with the scopes that ran in them, so `tomowb --measure` can say which handler held the
// event loop: "MetaCall to OrthoViews: 150 ms, of which VolumeView3D::reduce 120 ms".
//
// GUI thread only: scopes on other threads are ignored. Off (the default) it costs one branch.
#pragma once

#include <QEvent>
#include <QObject>
#include <QString>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace tomowb::render {

class EventTrace {
 public:
  struct TracedScope {
    std::string name;
    double ms = 0;
    int depth = 0;  // 0: directly inside the event
  };
  struct TracedEvent {
    double ms = 0;
    std::string receiver;  // class name, and object name if it has one
    int eventType = 0;     // QEvent::Type
    std::vector<TracedScope> scopes;
  };

  // On from now (the calling thread is the GUI thread), or off.
  static void setEnabled(bool enabled);
  static bool enabled() noexcept;
  static void clear();
  // The slowest events since clear(), slowest first (at most kKept).
  static std::vector<TracedEvent> slowest();
  static constexpr std::size_t kKept = 12;

  // Times one top-level event delivery (nested deliveries are part of it).
  class Dispatch {
   public:
    Dispatch(const QObject* receiver, const QEvent* event);
    ~Dispatch();
    Dispatch(const Dispatch&) = delete;
    Dispatch& operator=(const Dispatch&) = delete;

   private:
    bool counted_ = false;      // on the GUI thread with tracing on
    bool timed_ = false;        // and at the top level
    bool rasterPaint_ = false;  // a nested Paint of a widget drawn with QPainter
    const char* className_ = "";
    QString objectName_;
    int eventType_ = 0;
    std::chrono::steady_clock::time_point start_;
  };

  // Times a named part of the work inside an event.
  class Scope {
   public:
    explicit Scope(std::string_view name);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    bool active_ = false;
    std::size_t slot_ = 0;
    std::chrono::steady_clock::time_point start_;
  };
};

// "QEvent::Type 43 (MetaCall)" style names for the few types a stall comes from.
std::string eventTypeName(int type);

}  // namespace tomowb::render
