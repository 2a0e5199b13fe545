// EventLoopMonitor: measures how responsive the GUI thread is. A 10 ms heartbeat timer notes how
// late each beat arrives; the longest gap is the longest event-loop stall (the and
// ux-and-robustness.md's U6 goal: under 100 ms during any run). Shown in the status bar and
// checked by the tests.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <vector>

namespace tomowb::gui {

// The p-th percentile (0..100, nearest rank) of `values`; 0 for none.
double nearestRankPercentile(std::vector<double> values, double p);

class EventLoopMonitor : public QObject {
  Q_OBJECT

 public:
  explicit EventLoopMonitor(QObject* parent = nullptr, int periodMs = 10);
  void reset();  // forget the maximum so far
  // The time since the last beat is not a stall (the caller did deliberate work, such as a
  // screenshot for a script): the next beat counts from now.
  void excuse();
  double maxStallMs() const { return maxStallMs_; }  // longest gap beyond the period
  double lastStallMs() const { return lastStallMs_; }
  // Every beat's stall since reset() (0 for a beat on time), oldest first: for percentiles (the
  // responsiveness benchmark's p99). At most the last 100 000 beats (about 17 minutes).
  const std::vector<double>& stallsMs() const { return stalls_; }
  // The p-th percentile (0..100, nearest rank) of stallsMs(); 0 before any beat.
  double stallPercentileMs(double p) const;

 private:
  void beat();
  QTimer timer_;
  QElapsedTimer clock_;
  int periodMs_;
  qint64 lastBeatNs_ = 0;
  double maxStallMs_ = 0;
  double lastStallMs_ = 0;
  std::vector<double> stalls_;
};

}  // namespace tomowb::gui
