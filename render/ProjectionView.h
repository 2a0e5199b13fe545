// ProjectionView: one projection (a view of the ProjectionStack, detector columns x rows, row 0
// at the top) or the sinogram of one detector row (columns x views, view 0 at the top) as a 2-D
// image: a SliceView on an nz = 1 volume (VolumeImage.h), so W/L, colour maps, zoom, pan, the
// value under the cursor and screenshots behave as in the slice views. Scrubbing through views
// reuses the pipeline (same grid: only the voxel array is swapped); the wheel, arrow keys and
// b/f step through the views (or rows) as they step slices in a slice view.
#pragma once

#include <memory>

#include "recon/data/ProjectionStack.h"
#include "render/SliceView.h"

namespace tomowb::render {

class ProjectionView : public SliceView {
  Q_OBJECT

 public:
  enum class Content { Projection, Sinogram };

  explicit ProjectionView(Content content = Content::Projection, QWidget* parent = nullptr);

  Content content() const noexcept { return content_; }
  // The stack to show (nullptr clears). Keeps the index if it is still valid, else 0.
  void setProjections(std::shared_ptr<const ProjectionStack> projections);
  const std::shared_ptr<const ProjectionStack>& projections() const noexcept {
    return projections_;
  }
  // The view (Projection) or detector row (Sinogram) shown; clamped to the valid range.
  void setIndex(std::int64_t index);
  std::int64_t index() const noexcept { return index_; }
  std::int64_t indexCount() const noexcept;
  // Auto W/L: each new image gets its 0.1-99.9 % percentile; otherwise W/L stays as set.
  void setAutoWindowLevel(bool automatic);
  bool autoWindowLevel() const noexcept { return autoWindowLevel_; }

 signals:
  void indexChanged(std::int64_t index);

 protected:
  // The wheel, arrow keys and b/f step through views (or rows) as they step slices elsewhere.
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void showCurrent(bool keepViewState);

  Content content_;
  std::shared_ptr<const ProjectionStack> projections_;
  std::int64_t index_ = 0;
  bool autoWindowLevel_ = true;
};

}  // namespace tomowb::render
