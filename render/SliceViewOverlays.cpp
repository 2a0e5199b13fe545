// SliceViewOverlays.cpp: what SliceView draws over the image (crosshair, ROI outlines and labels
// with their statistics, rulers, the profile line, scale bar, slice and cursor text) and its
// measurements: setting, selecting, deleting, drawing new ones.
#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCoordinate.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>

#include <Eigen/Geometry>
#include <QStringList>
#include <algorithm>
#include <cmath>

#include "recon/metrics/MeasurementText.h"
#include "recon/metrics/PlanarRoi.h"
#include "render/SliceView.h"

namespace tomowb::render {

namespace {

constexpr double kCrosshairGapPx = 8.0;  // gap around the crosshair point, screen pixels
constexpr int kCircleSegments = 72;
constexpr unsigned char kSignalColour[3] = {80, 230, 80};
constexpr unsigned char kBackgroundColour[3] = {80, 170, 255};
constexpr unsigned char kSelectedColour[3] = {255, 230, 40};
constexpr unsigned char kDraftColour[3] = {255, 255, 255};
constexpr unsigned char kRulerColour[3] = {255, 170, 60};
constexpr unsigned char kProfileColour[3] = {240, 90, 240};
constexpr double kRulerTickPx = 5.0;  // half length of the ticks across a ruler's ends
constexpr double kLinePickPx = 5.0;   // a click this close to a line selects it

// ROI ids are unique across all views of the process (GUI thread only).
int nextRoiId = 1;

QString roiLabel(const SliceRoi& roi) {
  return (roi.role == SliceRoi::Background ? QStringLiteral("BG %1") : QStringLiteral("ROI %1"))
      .arg(roi.id);
}

// "1.5 mm", "10 nm", "0.25 mm": a scale bar's length (1, 2 or 5 x 10^k) without trailing zeros.
QString lengthText(double mm, LengthUnit unit) {
  return QString::number(mm / millimetresPer(unit), 'g', 6) + " " +
         QString::fromStdString(symbol(unit));
}

QString valueText(double v) {
  if (!std::isfinite(v)) return "-";
  return QString::number(v, 'g', 5);
}

QString rulerLabel(int id) {
  return QStringLiteral("Ruler %1").arg(id);
}

// Distance (mm) from `p` to the segment a-b, in the plane.
double distanceToSegment(const Eigen::Vector2d& p, const Eigen::Vector2d& a,
                         const Eigen::Vector2d& b) {
  const Eigen::Vector2d d = b - a;
  const double length2 = d.squaredNorm();
  const double t = length2 > 0.0 ? std::clamp((p - a).dot(d) / length2, 0.0, 1.0) : 0.0;
  return (p - (a + t * d)).norm();
}

}  // namespace

// --- overlays -----------------------------------------------------------------------------

void SliceView::setCrosshair(const Eigen::Vector3d& worldMm) {
  crosshair_ = worldMm;
  updateCrosshair();
  requestRender();
}

void SliceView::setCrosshairVisible(bool visible) {
  crosshairVisible_ = visible;
  crosshairActor_->SetVisibility(visible);
  requestRender();
}

void SliceView::updateCrosshair() {
  vtkPoints* points = crosshairLines_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  if (volume_) {
    const int a = axisIndex();
    Eigen::Vector3d centre = crosshair_;
    centre[a] = slicePositionMm();
    const double gap = kCrosshairGapPx * worldPerPixel();
    const Eigen::Vector3d lo = volume_->originMm() - 0.5 * volume_->voxelSizeMm();
    const Eigen::Vector3d hi =
        volume_->worldPosition(volume_->nx() - 0.5, volume_->ny() - 0.5, volume_->nz() - 0.5);
    for (int axisInPlane : inPlaneAxes(a)) {
      for (int side = 0; side < 2; ++side) {
        Eigen::Vector3d from = centre, to = centre;
        from[axisInPlane] = side == 0 ? lo[axisInPlane] : centre[axisInPlane] + gap;
        to[axisInPlane] = side == 0 ? centre[axisInPlane] - gap : hi[axisInPlane];
        if (to[axisInPlane] <= from[axisInPlane]) continue;
        const vtkIdType ids[2] = {points->InsertNextPoint(from.data()),
                                  points->InsertNextPoint(to.data())};
        lines->InsertNextCell(2, ids);
      }
    }
  }
  crosshairLines_->SetLines(lines);
  points->Modified();
  crosshairLines_->Modified();
  crosshairActor_->SetVisibility(crosshairVisible_ && volume_ != nullptr);
}

Eigen::Vector2d SliceView::inPlane(const Eigen::Vector3d& worldMm) const {
  const auto [a, b] = inPlaneAxes(axisIndex());
  return {worldMm[a], worldMm[b]};
}

bool SliceView::roiVisibleHere(const SliceRoi& roi) const {
  return volume_ && roi.axis == axisIndex() &&
         std::abs(roi.sliceMm - slicePositionMm()) < 0.5 * volume_->voxelSizeMm()[axisIndex()];
}

std::optional<SliceRoi> SliceView::draftRoi(const Eigen::Vector3d& endMm) const {
  if ((roiTool_ != RoiTool::Circle && roiTool_ != RoiTool::Rectangle) || !volume_)
    return std::nullopt;
  SliceRoi roi;
  roi.axis = axisIndex();
  roi.sliceMm = slicePositionMm();
  roi.role = newRoiRole_;
  const Eigen::Vector2d a = inPlane(pressWorld_), b = inPlane(endMm);
  if (roiTool_ == RoiTool::Circle) {
    roi.shape = SliceRoi::Circle;
    roi.centreMm = a;
    const double r = (b - a).norm();
    roi.halfSizeMm = {r, r};
  } else {
    roi.shape = SliceRoi::Rectangle;
    roi.centreMm = 0.5 * (a + b);
    roi.halfSizeMm = 0.5 * (b - a).cwiseAbs();
  }
  return roi;
}

std::optional<SliceLine> SliceView::draftLine(const Eigen::Vector3d& endMm) const {
  if ((roiTool_ != RoiTool::Ruler && roiTool_ != RoiTool::Profile) || !volume_) return std::nullopt;
  SliceLine line;
  line.axis = axisIndex();
  line.sliceMm = slicePositionMm();
  line.fromMm = inPlane(pressWorld_);
  line.toMm = inPlane(endMm);
  return line;
}

bool SliceView::lineVisibleHere(const SliceLine& line) const {
  return volume_ && line.axis == axisIndex() &&
         std::abs(line.sliceMm - slicePositionMm()) < 0.5 * volume_->voxelSizeMm()[axisIndex()];
}

void SliceView::updateMeasurementTexts() {
  overlayTexts_.clear();
  for (const SliceRoi& roi : rois_) {
    if (roi.axis != axisIndex()) continue;
    QString text = roi.label;
    if (volume_) {
      const metrics::PlanarRoiStats s = metrics::planarRoiStatistics(*volume_, roi.planar());
      if (s.voxelCount == 0) {
        text += tr("  outside the volume");
      } else {
        text += QStringLiteral("  %1 \u00b1 %2\n%3")
                    .arg(valueText(s.mean), valueText(s.std),
                         QString::fromStdString(metrics::areaText(s.areaMm2)));
      }
    }
    overlayTexts_[roi.id] = text;
  }
  auto lineText = [](const SliceLine& line) {
    return QStringLiteral("%1  %2").arg(
        line.label, QString::fromStdString(metrics::lengthText(line.lengthMm())));
  };
  for (const SliceLine& line : rulers_)
    if (line.axis == axisIndex()) overlayTexts_[line.id] = lineText(line);
  if (profileLine_) overlayTexts_[profileLine_->id] = lineText(*profileLine_);
}

QString SliceView::overlayText(int id) const {
  const auto it = overlayTexts_.find(id);
  return it == overlayTexts_.end() ? QString() : it->second;
}

void SliceView::updateRois() {
  vtkPoints* points = roiLines_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkUnsignedCharArray> colours;
  colours->SetNumberOfComponents(3);
  for (auto& label : roiLabels_) overlay_->RemoveActor2D(label);
  const auto [a, b] = inPlaneAxes(axisIndex());
  std::size_t labelCount = 0;
  auto nextLabel = [&]() -> vtkTextActor* {
    if (labelCount == roiLabels_.size()) {
      auto text = vtkSmartPointer<vtkTextActor>::New();
      text->GetPositionCoordinate()->SetCoordinateSystemToWorld();
      text->GetTextProperty()->SetFontSize(12);
      text->GetTextProperty()->SetShadow(1);
      roiLabels_.push_back(text);
    }
    return roiLabels_[labelCount++];
  };
  auto addOutline = [&](const SliceRoi& roi, const unsigned char* colour, bool labelled) {
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    point[axisIndex()] = slicePositionMm();
    std::vector<vtkIdType> ids;
    auto add = [&](double u, double v) {
      point[a] = u;
      point[b] = v;
      ids.push_back(points->InsertNextPoint(point.data()));
    };
    const Eigen::Vector2d c = roi.centreMm, h = roi.halfSizeMm;
    if (roi.shape == SliceRoi::Circle) {
      for (int i = 0; i < kCircleSegments; ++i) {
        const double t = 2.0 * M_PI * i / kCircleSegments;
        add(c.x() + h.x() * std::cos(t), c.y() + h.y() * std::sin(t));
      }
    } else {
      add(c.x() - h.x(), c.y() - h.y());
      add(c.x() + h.x(), c.y() - h.y());
      add(c.x() + h.x(), c.y() + h.y());
      add(c.x() - h.x(), c.y() + h.y());
    }
    ids.push_back(ids.front());
    lines->InsertNextCell(static_cast<vtkIdType>(ids.size()), ids.data());
    colours->InsertNextTypedTuple(colour);
    if (!labelled) return;
    vtkTextActor* text = nextLabel();
    text->GetTextProperty()->SetVerticalJustificationToBottom();
    // Above the shape, at its left edge as seen on screen.
    Eigen::Vector3d anchor = Eigen::Vector3d::Zero();
    anchor[axisIndex()] = slicePositionMm();
    anchor[a] = c.x();
    anchor[b] = c.y();
    const Eigen::Vector3d upExtent = (up_[a] != 0 ? h.x() : h.y()) * up_;
    const Eigen::Vector3d leftExtent = -(right_[a] != 0 ? h.x() : h.y()) * right_;
    anchor += upExtent + leftExtent;
    text->GetPositionCoordinate()->SetValue(anchor.data());
    const QString label = overlayText(roi.id);
    text->SetInput((label.isEmpty() ? roi.label : label).toUtf8().constData());
    text->GetTextProperty()->SetColor(colour[0] / 255.0, colour[1] / 255.0, colour[2] / 255.0);
    overlay_->AddActor2D(text);
  };
  // A line with short ticks across its ends, and its label beside the end point.
  auto addLine = [&](const SliceLine& line, const unsigned char* colour, bool labelled) {
    Eigen::Vector3d from = Eigen::Vector3d::Zero(), to = Eigen::Vector3d::Zero();
    from[axisIndex()] = to[axisIndex()] = slicePositionMm();
    from[a] = line.fromMm.x();
    from[b] = line.fromMm.y();
    to[a] = line.toMm.x();
    to[b] = line.toMm.y();
    const vtkIdType ids[2] = {points->InsertNextPoint(from.data()),
                              points->InsertNextPoint(to.data())};
    lines->InsertNextCell(2, ids);
    colours->InsertNextTypedTuple(colour);
    const Eigen::Vector3d along = to - from;
    if (along.norm() > 0.0) {
      const Eigen::Vector3d across =
          towards_.cross(along).normalized() * (kRulerTickPx * worldPerPixel());
      for (const Eigen::Vector3d& end : {from, to}) {
        const Eigen::Vector3d p0 = end - across, p1 = end + across;
        const vtkIdType tick[2] = {points->InsertNextPoint(p0.data()),
                                   points->InsertNextPoint(p1.data())};
        lines->InsertNextCell(2, tick);
        colours->InsertNextTypedTuple(colour);
      }
    }
    if (!labelled) return;
    vtkTextActor* text = nextLabel();
    text->GetTextProperty()->SetVerticalJustificationToCentered();
    // Past the end point, a few pixels to its right on screen.
    const Eigen::Vector3d anchor = to + (8.0 * worldPerPixel()) * right_;
    text->GetPositionCoordinate()->SetValue(anchor.data());
    const QString label = overlayText(line.id);
    text->SetInput((label.isEmpty() ? line.label : label).toUtf8().constData());
    text->GetTextProperty()->SetColor(colour[0] / 255.0, colour[1] / 255.0, colour[2] / 255.0);
    overlay_->AddActor2D(text);
  };
  for (const SliceRoi& roi : rois_) {
    if (!roiVisibleHere(roi)) continue;
    const unsigned char* colour = roi.id == selectedRoi_             ? kSelectedColour
                                  : roi.role == SliceRoi::Background ? kBackgroundColour
                                                                     : kSignalColour;
    addOutline(roi, colour, true);
  }
  for (const SliceLine& line : rulers_)
    if (lineVisibleHere(line))
      addLine(line, line.id == selectedRoi_ ? kSelectedColour : kRulerColour, true);
  if (profileLine_ && lineVisibleHere(*profileLine_))
    addLine(*profileLine_, profileLine_->id == selectedRoi_ ? kSelectedColour : kProfileColour,
            true);
  if (drag_ == Drag::DrawRoi) {
    if (auto draft = draftRoi(dragWorld_)) addOutline(*draft, kDraftColour, false);
    if (auto draft = draftLine(dragWorld_)) addLine(*draft, kDraftColour, false);
  }
  roiLines_->SetLines(lines);
  roiLines_->GetCellData()->SetScalars(colours);
  points->Modified();
  roiLines_->Modified();
}

void SliceView::updateScaleBar() {
  vtkPoints* points = scaleBarLines_->GetPoints();
  points->Reset();
  vtkNew<vtkCellArray> lines;
  const double dpr = devicePixelRatioF();
  const double mmPerPixel = worldPerPixel();
  const double viewWidthMm = width() * mmPerPixel;
  if (volume_ && viewWidthMm > 0.0 && width() > 80) {
    // The largest 1, 2 or 5 x 10^k of the display's length unit (mm, or nm for a tomogram) not
    // longer than a fifth of the view.
    const double unitMm = millimetresPer(units_.lengthUnit());
    const double target = 0.2 * viewWidthMm / unitMm;
    const double decade = std::pow(10.0, std::floor(std::log10(target)));
    double length = decade;
    for (double m : {2.0, 5.0})
      if (m * decade <= target) length = m * decade;
    length *= unitMm;
    const double lengthPx = length / mmPerPixel * dpr;
    const double x1 = (width() - 16) * dpr, x0 = x1 - lengthPx, y = 14 * dpr, tick = 5 * dpr;
    const vtkIdType bar[2] = {points->InsertNextPoint(x0, y, 0), points->InsertNextPoint(x1, y, 0)};
    const vtkIdType left[2] = {points->InsertNextPoint(x0, y, 0),
                               points->InsertNextPoint(x0, y + tick, 0)};
    const vtkIdType right[2] = {points->InsertNextPoint(x1, y, 0),
                                points->InsertNextPoint(x1, y + tick, 0)};
    lines->InsertNextCell(2, bar);
    lines->InsertNextCell(2, left);
    lines->InsertNextCell(2, right);
    scaleBarText_->SetInput(lengthText(length, units_.lengthUnit()).toUtf8().constData());
    scaleBarText_->GetPositionCoordinate()->SetValue(0.5 * (x0 + x1), y + 4 * dpr);
    scaleBarText_->SetVisibility(true);
  } else {
    scaleBarText_->SetVisibility(false);
  }
  scaleBarLines_->SetLines(lines);
  points->Modified();
  scaleBarLines_->Modified();
}

void SliceView::updateText() {
  QStringList lines;
  if (!title_.isEmpty()) lines << title_;
  if (volume_) {
    const char axisLetter = "xyz"[axisIndex()];
    if (showSliceInfo_ && sliceCount() > 1)
      lines << QStringLiteral("%1  %2 = %3  [%4/%5]")
                   .arg(viewName())
                   .arg(QChar(axisLetter))
                   .arg(QString::fromStdString(units_.formatLength(slicePositionMm())))
                   .arg(slice_)
                   .arg(sliceCount() - 1);
    lines << QStringLiteral("W %1  L %2 %3")
                 .arg(valueText(units_.widthToDisplay(windowLevel_.window)),
                      valueText(units_.toDisplay(windowLevel_.level)),
                      QString::fromStdString(units_.valueSymbol()))
                 .trimmed();
  }
  infoText_->SetInput(lines.join('\n').toUtf8().constData());
}

void SliceView::updateCursorText(const Eigen::Vector3d& worldMm, float value) {
  if (!volume_ || !std::isfinite(value)) {
    cursorText_->SetInput("");
    return;
  }
  const LengthUnit unit = units_.lengthUnit();
  cursorText_->SetInput(QStringLiteral("(%1, %2, %3) %4  value %5")
                            .arg(QString::fromStdString(formatLengthValue(worldMm.x(), unit)),
                                 QString::fromStdString(formatLengthValue(worldMm.y(), unit)),
                                 QString::fromStdString(formatLengthValue(worldMm.z(), unit)),
                                 QString::fromStdString(symbol(unit)),
                                 QString::fromStdString(units_.formatValue(value)))
                            .toUtf8()
                            .constData());
}

void SliceView::setDisplayUnits(const DisplayUnits& units) {
  if (units == units_) return;
  units_ = units;
  updateScaleBar();
  updateText();
  requestRender();
}

QString SliceView::viewName() const {
  // DisplayUnits names the views by their normal: z, y, x; Axis is the normal's index.
  return QString::fromStdString(units_.viewNames()[static_cast<std::size_t>(2 - axisIndex())]);
}

// --- ROIs ---------------------------------------------------------------------------------

void SliceView::setRoiTool(RoiTool tool) {
  setCursor(tool == RoiTool::None ? Qt::ArrowCursor : Qt::CrossCursor);
  if (tool == roiTool_) return;
  roiTool_ = tool;
  emit roiToolChanged(tool);
}

void SliceView::setRois(std::vector<SliceRoi> rois) {
  rois_ = std::move(rois);
  for (SliceRoi& roi : rois_) {
    if (roi.id <= 0) roi.id = nextRoiId++;
    nextRoiId = std::max(nextRoiId, roi.id + 1);
    if (roi.label.isEmpty()) roi.label = roiLabel(roi);
  }
  if (std::none_of(rois_.begin(), rois_.end(),
                   [this](const SliceRoi& r) { return r.id == selectedRoi_; }))
    selectedRoi_ = -1;
  updateMeasurementTexts();
  updateRois();
  requestRender();
  emit roisChanged();
}

void SliceView::selectRoi(int id) {
  if (id == selectedRoi_) return;
  selectedRoi_ = id;
  updateRois();
  requestRender();
  emit roiSelected(id);
}

void SliceView::setRoiRole(int id, SliceRoi::Role role) {
  for (SliceRoi& roi : rois_) {
    if (roi.id != id || roi.role == role) continue;
    const bool defaultLabel = roi.label == roiLabel(roi);
    roi.role = role;
    if (defaultLabel) roi.label = roiLabel(roi);
    updateMeasurementTexts();
    updateRois();
    requestRender();
    emit roisChanged();
  }
}

bool SliceView::deleteMeasurement(int id) {
  if (id < 0) return false;
  const bool wasSelected = id == selectedRoi_;
  if (wasSelected) selectedRoi_ = -1;
  auto done = [this, wasSelected] {
    updateMeasurementTexts();
    updateRois();
    requestRender();
    if (wasSelected) emit roiSelected(-1);
  };
  const auto roi =
      std::find_if(rois_.begin(), rois_.end(), [id](const SliceRoi& r) { return r.id == id; });
  if (roi != rois_.end()) {
    rois_.erase(roi);
    done();
    emit roisChanged();
    return true;
  }
  const auto ruler =
      std::find_if(rulers_.begin(), rulers_.end(), [id](const SliceLine& l) { return l.id == id; });
  if (ruler != rulers_.end()) {
    rulers_.erase(ruler);
    done();
    emit rulersChanged();
    return true;
  }
  if (profileLine_ && profileLine_->id == id) {
    profileLine_.reset();
    done();
    emit profileLineChanged();
    return true;
  }
  if (wasSelected) emit roiSelected(-1);
  return false;
}

void SliceView::clearMeasurements() {
  const bool hadRois = !rois_.empty(), hadRulers = !rulers_.empty();
  const bool hadProfile = profileLine_.has_value(), hadSelection = selectedRoi_ >= 0;
  rois_.clear();
  rulers_.clear();
  profileLine_.reset();
  selectedRoi_ = -1;
  updateMeasurementTexts();
  updateRois();
  requestRender();
  if (hadSelection) emit roiSelected(-1);
  if (hadRois) emit roisChanged();
  if (hadRulers) emit rulersChanged();
  if (hadProfile) emit profileLineChanged();
}

void SliceView::setRulers(std::vector<SliceLine> rulers) {
  rulers_ = std::move(rulers);
  for (SliceLine& line : rulers_) {
    if (line.id <= 0) line.id = nextRoiId++;
    nextRoiId = std::max(nextRoiId, line.id + 1);
    if (line.label.isEmpty()) line.label = rulerLabel(line.id);
  }
  updateMeasurementTexts();
  updateRois();
  requestRender();
  emit rulersChanged();
}

void SliceView::setProfileLine(std::optional<SliceLine> line) {
  if (line == profileLine_) return;
  if (profileLine_ && profileLine_->id == selectedRoi_) selectedRoi_ = -1;
  profileLine_ = std::move(line);
  if (profileLine_) {
    if (profileLine_->id <= 0) profileLine_->id = nextRoiId++;
    nextRoiId = std::max(nextRoiId, profileLine_->id + 1);
    if (profileLine_->label.isEmpty()) profileLine_->label = tr("Profile");
  }
  updateMeasurementTexts();
  updateRois();
  requestRender();
  emit profileLineChanged();
}

int SliceView::roiAt(const Eigen::Vector3d& worldMm) const {
  const Eigen::Vector2d p = inPlane(worldMm);
  // Lines first (they are thin and often lie over an ROI), the nearest within a few pixels.
  const double pick = kLinePickPx * worldPerPixel();
  int nearest = -1;
  double nearestMm = pick;
  auto consider = [&](const SliceLine& line) {
    if (!lineVisibleHere(line)) return;
    const double d = distanceToSegment(p, line.fromMm, line.toMm);
    if (d <= nearestMm) {
      nearestMm = d;
      nearest = line.id;
    }
  };
  for (const SliceLine& line : rulers_) consider(line);
  if (profileLine_) consider(*profileLine_);
  if (nearest >= 0) return nearest;
  // The last drawn (topmost) ROI wins.
  for (auto it = rois_.rbegin(); it != rois_.rend(); ++it)
    if (roiVisibleHere(*it) && it->containsInPlane(p)) return it->id;
  return -1;
}

bool SliceView::finishRoi(const Eigen::Vector3d& endMm) {
  // Too small to be meant (under two screen pixels): ignore.
  const double smallest = 2.0 * worldPerPixel();
  if (std::optional<SliceLine> line = draftLine(endMm)) {
    if (line->lengthMm() < smallest) return false;
    line->id = nextRoiId++;
    if (roiTool_ == RoiTool::Ruler) {
      line->label = rulerLabel(line->id);
      rulers_.push_back(*line);
      selectedRoi_ = line->id;
      updateMeasurementTexts();
      emit rulersChanged();
    } else {
      line->label = tr("Profile");
      profileLine_ = *line;
      selectedRoi_ = line->id;
      updateMeasurementTexts();
      emit profileLineChanged();
    }
    emit roiSelected(line->id);
    return true;
  }
  std::optional<SliceRoi> roi = draftRoi(endMm);
  if (!roi || roi->halfSizeMm.maxCoeff() < smallest) return false;
  roi->id = nextRoiId++;
  roi->label = roiLabel(*roi);
  rois_.push_back(*roi);
  selectedRoi_ = roi->id;
  updateMeasurementTexts();
  emit roisChanged();
  emit roiSelected(roi->id);
  return true;
}

}  // namespace tomowb::render
