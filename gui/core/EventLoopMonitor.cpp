// EventLoopMonitor: see the header.
#include "gui/core/EventLoopMonitor.h"

#include <algorithm>
#include <cmath>

namespace tomowb::gui {

namespace {
constexpr std::size_t kMaxSamples = 100000;
}  // namespace

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
  stalls_.clear();
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
  if (stalls_.size() >= kMaxSamples)
    stalls_.erase(stalls_.begin(), stalls_.begin() + kMaxSamples / 2);
  stalls_.push_back(lastStallMs_);
}

double nearestRankPercentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size());
  const auto index = static_cast<std::size_t>(std::max(1.0, std::ceil(rank))) - 1;
  return values[std::min(index, values.size() - 1)];
}

double EventLoopMonitor::stallPercentileMs(double p) const {
  return nearestRankPercentile(stalls_, p);
}

}  // namespace tomowb::gui
