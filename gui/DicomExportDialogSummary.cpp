// DicomExportDialogSummary.cpp: what DicomExportDialog shows of the planned export after every
// change: the summary from io::dicom::planDicomExport and the preview of the first exported slice.
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <vector>

#include "gui/DicomExportDialog.h"
#include "gui/DicomExportDialogInternal.h"
#include "recon/core/DisplayUnits.h"

namespace tomowb::gui {

namespace {

using detail::filesText;
using detail::humanBytes;
using detail::kPreviewEdge;
using detail::number;
using detail::typeDescription;
using io::dicom::DicomCompression;
using io::dicom::DicomExportOptions;
using io::dicom::DicomExportPlan;
using io::dicom::DicomObjectType;
using io::dicom::DicomValueMode;

// Planning reads every exported voxel once: up to this many voxels it follows each keystroke,
// above it waits for a pause in the typing (a 512^3 volume takes about 0.2 s per pass).
constexpr std::int64_t kImmediatePlanVoxels = 8 << 20;

QString shortNumber(double value) {
  return QString::number(value, 'g', 4);
}

// The 0.1 and 99.9 percentiles of the finite values (the window of the preview, as the slice
// views choose theirs when a file gives none).
std::pair<float, float> percentileWindow(std::vector<float> values) {
  values.erase(
      std::remove_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }),
      values.end());
  if (values.empty()) return {0.0f, 1.0f};
  const auto at = [&](double q) {
    const auto k = static_cast<std::ptrdiff_t>(std::llround(q * double(values.size() - 1)));
    std::nth_element(values.begin(), values.begin() + k, values.end());
    return values[std::size_t(k)];
  };
  const float lo = at(0.001), hi = at(0.999);
  return {lo, hi > lo ? hi : lo + 1.0f};
}

// "16-bit integers × slope … + intercept …", PET's slope per slice as its range.
QString rescaleText(const DicomExportPlan& p) {
  if (!p.sliceRescaleSlopes.empty()) {
    const auto [lo, hi] =
        std::minmax_element(p.sliceRescaleSlopes.begin(), p.sliceRescaleSlopes.end());
    if (*lo == *hi)
      return DicomExportDialog::tr(
                 "16-bit integers × a slope per slice (%1 in every slice) + intercept 0<br>")
          .arg(number(*hi));
    return DicomExportDialog::tr("16-bit integers × a slope per slice (%1 … %2) + intercept 0<br>")
        .arg(number(*lo), number(*hi));
  }
  return DicomExportDialog::tr("16-bit integers × slope %1 + intercept %2%3<br>")
      .arg(number(p.rescaleSlope), number(p.rescaleIntercept))
      .arg(p.rescaleType.empty() ? QString()
                                 : DicomExportDialog::tr(" (Rescale Type %1)")
                                       .arg(QString::fromStdString(p.rescaleType)));
}

// The computed PET timing: Frame Reference Time and, when decay corrected, the Decay Factor.
QString petText(const DicomExportPlan& p) {
  QString text = DicomExportDialog::tr("<br>Frame reference time %1 s")
                     .arg(number(p.petFrameReferenceTimeMs / 1000.0));
  if (p.petDecayFactor)
    text += DicomExportDialog::tr(", decay factor %1").arg(number(*p.petDecayFactor));
  return text;
}

}  // namespace

QString detail::humanBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return QStringLiteral("%1 %2").arg(bytes, 0, 'f', unit == 0 ? 0 : 1).arg(units[unit]);
}

// "1 file", "6 files" (tr's %n needs a translation to say it in English).
QString detail::filesText(std::int64_t files) {
  return files == 1 ? DicomExportDialog::tr("1 file")
                    : DicomExportDialog::tr("%1 files").arg(files);
}

QString detail::number(double value) {
  return QString::number(value, 'g', 6);
}

QString detail::typeDescription(DicomObjectType type) {
  switch (type) {
    case DicomObjectType::CtImage:
      return DicomExportDialog::tr("CT Image, one file per slice");
    case DicomObjectType::EnhancedCtImage:
      return DicomExportDialog::tr("Enhanced CT Image, one multi-frame file");
    case DicomObjectType::PetImage:
      return DicomExportDialog::tr("PET Image, one file per slice");
  }
  return {};
}

void DicomExportDialog::scheduleSummary() {
  if (volume_->voxelCount() <= kImmediatePlanVoxels)
    refreshSummary();
  else
    summaryTimer_->start();
}

void DicomExportDialog::refreshSummary() {
  summaryTimer_->stop();
  plan_.reset();
  problem_.clear();
  const DicomExportOptions o = options();
  try {
    plan_ = io::dicom::planDicomExport(*volume_, o);
  } catch (const std::exception& e) {
    problem_ = QString::fromStdString(e.what());
  }
  if (plan_) {
    const DicomExportPlan& p = *plan_;
    const QString units = QString::fromStdString(p.units).toHtmlEscaped();
    QString text =
        tr("<b>%1</b> · %2<br>").arg(filesText(p.files), typeDescription(o.type)) +
        tr("%1 × %2 pixels × %3 slices from voxel (%4, %5, %6)<br>")
            .arg(p.columns)
            .arg(p.rows)
            .arg(p.slices)
            .arg(p.x0)
            .arg(p.y0)
            .arg(p.z0) +
        tr("About %1%2<br>")
            .arg(humanBytes(static_cast<double>(p.estimatedBytes)))
            .arg(o.compression == DicomCompression::None ? QString() : tr(" before compression")) +
        tr("Values in <b>%1</b>: %2 … %3<br>").arg(units, number(p.minValue), number(p.maxValue)) +
        rescaleText(p) + tr("Worst rounding: ±%1 %2").arg(number(p.maxQuantisationError), units);
    if (o.type == DicomObjectType::PetImage) text += petText(p);
    // HU far outside air..metal: the data are not CT attenuation in 1/mm (an ET tomogram gave
    // 10^12 HU in the review), or the water value is wrong.
    if (o.type != DicomObjectType::PetImage && o.values == DicomValueMode::Hounsfield &&
        (p.minValue < kPlausibleHuMin || p.maxValue > kPlausibleHuMax))
      text += QStringLiteral("<br><span style='color:#c62828;'>\u26a0 %1</span>")
                  .arg(tr("HU from %1 to %2 make no sense (CT spans %3 … %4 HU): these values are "
                          "not attenuation in 1/mm, or the water value is wrong. Export the "
                          "volume's own values instead.")
                           .arg(number(p.minValue), number(p.maxValue))
                           .arg(kPlausibleHuMin)
                           .arg(kPlausibleHuMax)
                           .toHtmlEscaped());
    for (const std::string& w : p.warnings)
      text += QStringLiteral("<br><span style='color:#b26a00;'>\u26a0 %1</span>")
                  .arg(QString::fromStdString(w).toHtmlEscaped());
    summary_->setText(text);
  } else {
    summary_->setText(QStringLiteral("<span style='color:#c62828;'>\u26a0 %1</span>")
                          .arg(problem_.toHtmlEscaped()));
  }
  updateExportButton();
  updatePreview();
}

void DicomExportDialog::updatePreview() {
  if (!plan_) {
    preview_->setPixmap(QPixmap());
    preview_->setText(tr("no preview"));
    previewCaption_->clear();
    return;
  }
  const DicomExportPlan& p = *plan_;
  const Volume& v = *volume_;
  // The middle exported slice: the first is often an empty edge slice (a black preview).
  const std::int64_t z = p.z0 + p.slices / 2;
  std::vector<float> values;
  values.reserve(static_cast<std::size_t>(p.columns * p.rows));
  for (std::int64_t y = p.y0; y < p.y0 + p.rows; ++y)
    for (std::int64_t x = p.x0; x < p.x0 + p.columns; ++x) values.push_back(v.at(x, y, z));
  const auto [lo, hi] = percentileWindow(values);
  // Row 0 at the top, columns to the right: as a DICOM viewer shows the slice (row direction
  // +x, column direction +y for head first supine).
  QImage image(static_cast<int>(p.columns), static_cast<int>(p.rows), QImage::Format_Grayscale8);
  for (std::int64_t y = 0; y < p.rows; ++y) {
    uchar* line = image.scanLine(static_cast<int>(y));
    for (std::int64_t x = 0; x < p.columns; ++x) {
      const float value = values[std::size_t(y * p.columns + x)];
      const double t = std::isfinite(value) ? (value - lo) / double(hi - lo) : 0.0;
      line[x] = static_cast<uchar>(std::lround(255.0 * std::clamp(t, 0.0, 1.0)));
    }
  }
  // Square pixels on screen for the voxel spacing.
  const double width = double(p.columns) * v.voxelSizeMm().x();
  const double height = double(p.rows) * v.voxelSizeMm().y();
  const double scale = kPreviewEdge / std::max(width, height);
  const QSize size(std::max(1, int(std::lround(width * scale))),
                   std::max(1, int(std::lround(height * scale))));
  const bool enlarging = size.width() >= image.width();
  preview_->setPixmap(QPixmap::fromImage(image.scaled(
      size, Qt::IgnoreAspectRatio, enlarging ? Qt::FastTransformation : Qt::SmoothTransformation)));
  previewCaption_->setText(tr("Slice %1 (z = %2 mm), window %3 … %4 (0.1–99.9 %); the volume's "
                              "own values, before the mapping")
                               .arg(z)
                               .arg(shortNumber(v.worldPosition(0, 0, double(z)).z()))
                               .arg(shortNumber(lo), shortNumber(hi)));
}

}  // namespace tomowb::gui
