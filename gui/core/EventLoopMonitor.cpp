// EventLoopMonitor: see the header.
#include "gui/core/EventLoopMonitor.h"

#include <algorithm>

namespace tomowb::gui {

EventLoopMonitor::EventLoopMonitor(QObject* parent, int periodMs)
    : QObject(parent), periodMs_(periodMs) {
  timer_.setTimerType(Qt::PreciseTimer);
  timer_.setInterval(periodMs_);
  connect(&timer_, &QTimer::timeout, this, &EventLoopMonitor::beat);
  clock_.start();
  lastBeatNs_ = clock_.nsecsElapsed();
  timer_.start();
}

void EventLoopMonitor::reset() {
  maxStallMs_ = 0;
  lastStallMs_ = 0;
  lastBeatNs_ = clock_.nsecsElapsed();
}

void EventLoopMonitor::excuse() {
  lastBeatNs_ = clock_.nsecsElapsed();
}

void EventLoopMonitor::beat() {
  const qint64 now = clock_.nsecsElapsed();
  const double gapMs = static_cast<double>(now - lastBeatNs_) / 1e6;
  lastBeatNs_ = now;
  // The stall is how much later than its period the beat came.
  lastStallMs_ = std::max(0.0, gapMs - periodMs_);
  maxStallMs_ = std::max(maxStallMs_, lastStallMs_);
}

}  // namespace tomowb::gui
