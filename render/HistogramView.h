// HistogramView: a small histogram of the shown volume (log10(1 + count) per bin, because the
// background of a reconstruction outnumbers the object by orders of magnitude) with the current
// window drawn as two vertical lines at level -+ window/2, like Avizo's and Slicer's W/L
// histograms. A vtkChartXY in a vtkContextView on our widget; display only (no chart
// interaction, so no context-style timers).
#pragma once

#include <vtkSmartPointer.h>

#include <memory>

#include "recon/core/Volume.h"
#include "render/VtkOpenGLWidget.h"
#include "render/WindowLevel.h"

class vtkChartXY;
class vtkContextView;
class vtkTable;

namespace tomowb::render {

class HistogramView : public VtkOpenGLWidget {
  Q_OBJECT

 public:
  static constexpr int kBins = 256;

  explicit HistogramView(QWidget* parent = nullptr);
  ~HistogramView() override;

  // nullptr clears. One pass over the voxels (a few ms per 16 M voxels on two cores).
  void setVolume(const std::shared_ptr<const Volume>& volume);
  void setStatistics(const VolumeStatistics& statistics);
  void setWindowLevel(double window, double level);
  const VolumeStatistics& statistics() const noexcept { return statistics_; }

 private:
  void updateWindowLines();

  vtkSmartPointer<vtkContextView> view_;
  vtkSmartPointer<vtkChartXY> chart_;
  vtkSmartPointer<vtkTable> histogram_;
  vtkSmartPointer<vtkTable> lowerLine_, upperLine_;
  VolumeStatistics statistics_;
  WindowLevel windowLevel_;
};

}  // namespace tomowb::render
