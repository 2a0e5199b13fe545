// ConsistencyView: the geometry editor's consistency overlay. For the selected view it shows,
// side by side, the measured projection (Workspace::projections()), the projection predicted
// with the EDITED geometry (the workspace's analytic phantom if it has one, else a forward
// projection of the current volume: gui/core/ConsistencyCheck.h) and their difference (blue -
// white - red, symmetric range), with the relative RMS difference in one line. A wrong detector
// offset or rotation sense shows as a clear red/blue pattern. The work runs on a worker thread
// (std::thread); a newer request cancels the one in flight, and results come back through a
// queued call, so typing in the editor never waits for it. Images are drawn with QPainter,
// measured and predicted with the same automatic window (the measured view's range).
#pragma once

#include <QImage>
#include <QString>
#include <QWidget>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "gui/core/ConsistencyCheck.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/CancelToken.h"

namespace tomowb::gui {

class Workspace;

class ConsistencyView : public QWidget {
  Q_OBJECT

 public:
  explicit ConsistencyView(Workspace& workspace, QWidget* parent = nullptr);
  ~ConsistencyView() override;
  ConsistencyView(const ConsistencyView&) = delete;
  ConsistencyView& operator=(const ConsistencyView&) = delete;

  int selectedView() const noexcept { return view_; }
  // The last finished comparison (nullopt before the first, or after an error).
  const std::optional<ConsistencyResult>& result() const noexcept { return result_; }
  QString summary() const { return summary_; }

  QSize sizeHint() const override { return {720, 300}; }

 public slots:
  // The geometry being edited (not yet applied). Until one is given, the workspace's geometry.
  void setEditedGeometry(const tomowb::Geometry& geometry);
  void clearEditedGeometry();
  void setSelectedView(int view);
  // Recomputes now (also called on workspace changes).
  void refresh();

 signals:
  // A comparison finished (relative RMS difference) or failed (message): tests wait on these.
  void resultReady(double relativeRms);
  void failed(const QString& message);

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  struct Request;
  void workerLoop();
  void deliver(std::uint64_t generation, std::optional<ConsistencyResult> result,
               const QString& error);

  Workspace& workspace_;
  std::optional<Geometry> edited_;
  int view_ = 0;
  std::optional<ConsistencyResult> result_;
  QImage measuredImage_, predictedImage_, differenceImage_;
  QString summary_;

  // Worker: at most one pending request; a new one replaces it and cancels the running one.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::unique_ptr<Request> pending_;
  std::shared_ptr<CancelToken> running_;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace tomowb::gui
