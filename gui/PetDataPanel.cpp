// PetDataPanel: see the header.
#include "gui/PetDataPanel.h"

#include <QCheckBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMetaObject>
#include <QPixmap>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <span>
#include <vector>

#include "gui/core/PetHistoView.h"
#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/pet/PetPipeline.h"
#include "render/ColourMaps.h"

namespace tomowb::gui {

namespace {

constexpr double kDegPerRad = 180.0 / std::numbers::pi;
constexpr int kImagePixels = 200;  // the browser image's edge on screen (fits a 280 px dock)

QString layoutText(const pet::ScannerModel& s) {
  return s.layout == pet::DetectorLayout::FlatModules
             ? PetDataPanel::tr("%1 flat modules of %2 crystals")
                   .arg(s.modules)
                   .arg(s.crystalsPerModule())
             : PetDataPanel::tr("cylinder");
}

// The plane the browser shows: one slice, or the sum over z.
std::vector<float> planeOf(const Volume& v, int slice, bool sum) {
  std::vector<float> plane(static_cast<std::size_t>(v.nx() * v.ny()), 0.0f);
  const std::int64_t first = sum ? 0 : slice, end = sum ? v.nz() : slice + 1;
  for (std::int64_t z = first; z < end; ++z)
    for (std::int64_t y = 0; y < v.ny(); ++y)
      for (std::int64_t x = 0; x < v.nx(); ++x)
        plane[static_cast<std::size_t>(y * v.nx() + x)] += v.at(x, y, z);
  return plane;
}

// The plane in the hot colour map from 0 to `peak`, y up as the slice views show the axial plane.
QImage hotImage(const std::vector<float>& plane, int nx, int ny, float peak) {
  QImage picture(nx, ny, QImage::Format_RGB32);
  for (int y = 0; y < ny; ++y) {
    auto* row = reinterpret_cast<QRgb*>(picture.scanLine(ny - 1 - y));
    for (int x = 0; x < nx; ++x) {
      const float value = plane[static_cast<std::size_t>(y) * static_cast<std::size_t>(nx) +
                                static_cast<std::size_t>(x)];
      const double t = peak > 0 ? double(value) / double(peak) : 0.0;
      const auto c = render::colourAt(render::ColourMap::Hot, t);
      row[x] = qRgb(int(std::lround(c[0] * 255)), int(std::lround(c[1] * 255)),
                    int(std::lround(c[2] * 255)));
    }
  }
  return picture;
}

QString secondsText(double seconds) {
  if (seconds <= 0) return PetDataPanel::tr("unknown");
  if (seconds < 1.0) return PetDataPanel::tr("%1 ms").arg(seconds * 1e3, 0, 'f', 0);
  if (seconds < 120.0) return PetDataPanel::tr("%1 s").arg(seconds, 0, 'f', 2);
  return PetDataPanel::tr("%1 min").arg(seconds / 60.0, 0, 'f', 1);
}

}  // namespace

PetDataPanel::PetDataPanel(Workspace& workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace) {
  setObjectName(QStringLiteral("petDataPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  hint_ = new QLabel(
      tr("No PET data open. File > Simulate PET scan… makes a TOF list-mode scan of the PET "
         "phantom; File > Open list-mode… reads one (docs/pet.md)."),
      this);
  hint_->setObjectName(QStringLiteral("petDataHint"));
  hint_->setWordWrap(true);
  layout->addWidget(hint_);

  content_ = new QWidget(this);
  auto* contentLayout = new QVBoxLayout(content_);
  contentLayout->setContentsMargins(0, 0, 0, 0);
  title_ = new QLabel(content_);
  title_->setObjectName(QStringLiteral("petDataTitle"));
  title_->setWordWrap(true);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  contentLayout->addWidget(title_);

  auto* scannerBox = new QGroupBox(tr("Scanner"), content_);
  auto* scannerLayout = new QVBoxLayout(scannerBox);
  scanner_ = new QLabel(scannerBox);
  scanner_->setObjectName(QStringLiteral("petScannerSummary"));
  scanner_->setWordWrap(true);
  scanner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  scannerLayout->addWidget(scanner_);
  contentLayout->addWidget(scannerBox);

  auto* countsBox = new QGroupBox(tr("Counts"), content_);
  auto* countsLayout = new QVBoxLayout(countsBox);
  counts_ = new QLabel(countsBox);
  counts_->setObjectName(QStringLiteral("petCountsSummary"));
  counts_->setWordWrap(true);
  counts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  countsLayout->addWidget(counts_);
  contentLayout->addWidget(countsBox);

  auto* browser = new QGroupBox(tr("Histo-images (DIRECT views)"), content_);
  auto* browserLayout = new QVBoxLayout(browser);
  viewSlider_ = new QSlider(Qt::Horizontal, browser);
  viewSlider_->setObjectName(QStringLiteral("petViewSlider"));
  viewSlider_->setAccessibleName(tr("DIRECT view"));
  viewSlider_->setToolTip(
      tr("The view: a cell of azimuth (0-180°) and tilt of the lines of "
         "response; PgUp/PgDn step through the azimuths of one tilt"));
  viewLabel_ = new QLabel(browser);
  viewLabel_->setObjectName(QStringLiteral("petViewLabel"));
  sliceSlider_ = new QSlider(Qt::Horizontal, browser);
  sliceSlider_->setObjectName(QStringLiteral("petSliceSlider"));
  sliceSlider_->setAccessibleName(tr("Histo-image slice"));
  sliceLabel_ = new QLabel(browser);
  sliceLabel_->setObjectName(QStringLiteral("petSliceLabel"));
  sumSlices_ = new QCheckBox(tr("&Sum of all slices"), browser);
  sumSlices_->setObjectName(QStringLiteral("petSumSlices"));
  sumSlices_->setChecked(true);
  sumSlices_->setToolTip(
      tr("One view holds a small share of the prompts: its slices are sparse, their sum shows "
         "the object"));
  imageLabel_ = new QLabel(browser);
  imageLabel_->setObjectName(QStringLiteral("petHistoImage"));
  imageLabel_->setFixedSize(kImagePixels, kImagePixels);
  imageLabel_->setAlignment(Qt::AlignCenter);
  imageLabel_->setStyleSheet(QStringLiteral("background: black; color: #bbbbbb;"));
  imageCaption_ = new QLabel(browser);
  imageCaption_->setObjectName(QStringLiteral("petHistoCaption"));
  imageCaption_->setWordWrap(true);
  openButton_ = new QPushButton(tr("Open in slice &views"), browser);
  openButton_->setObjectName(QStringLiteral("petHistoOpenButton"));
  openButton_->setToolTip(
      tr("Add this view's histo-image to the data list and show it in the "
         "slice views (counts per voxel)"));
  browserLayout->addWidget(viewLabel_);
  browserLayout->addWidget(viewSlider_);
  browserLayout->addWidget(sliceLabel_);
  browserLayout->addWidget(sliceSlider_);
  browserLayout->addWidget(sumSlices_);
  auto* imageRow = new QHBoxLayout;
  imageRow->addStretch(1);
  imageRow->addWidget(imageLabel_);
  imageRow->addStretch(1);
  browserLayout->addLayout(imageRow);
  browserLayout->addWidget(imageCaption_);
  browserLayout->addWidget(openButton_);
  contentLayout->addWidget(browser);
  layout->addWidget(content_);
  layout->addStretch(1);

  connect(viewSlider_, &QSlider::valueChanged, this, [this] {
    viewLabel_->setText(viewText());
    requestView();
  });
  connect(sliceSlider_, &QSlider::valueChanged, this, &PetDataPanel::drawSlice);
  connect(sumSlices_, &QCheckBox::toggled, this, &PetDataPanel::drawSlice);
  connect(openButton_, &QPushButton::clicked, this, &PetDataPanel::openInSliceViews);
  connect(&workspace_, &Workspace::petDataChanged, this, &PetDataPanel::onDataChanged);
  onDataChanged();
}

PetDataPanel::~PetDataPanel() {
  if (browseToken_) browseToken_->request();
  if (browseThread_.joinable()) browseThread_.join();
}

QSize PetDataPanel::sizeHint() const {
  return {std::max(QWidget::sizeHint().width(), 300), QWidget::sizeHint().height()};
}

QString PetDataPanel::scannerText() const {
  return scanner_->text();
}

QString PetDataPanel::countsText() const {
  return counts_->text();
}

int PetDataPanel::currentView() const {
  return viewSlider_->value();
}

void PetDataPanel::setView(int view) {
  viewSlider_->setValue(view);
}

int PetDataPanel::currentSlice() const {
  return sliceSlider_->value();
}

void PetDataPanel::setSlice(int slice) {
  sliceSlider_->setValue(slice);
}

void PetDataPanel::setSumOfSlices(bool sum) {
  sumSlices_->setChecked(sum);
}

QString PetDataPanel::viewText() const {
  if (!data_) return {};
  const int view = viewSlider_->value();
  const pet::ViewFrame frame = views_.frame(view);
  return tr("View %1 of %2: azimuth %3°, tilt %4°")
      .arg(view + 1)
      .arg(views_.count())
      .arg(frame.azimuthRad * kDegPerRad, 0, 'f', 1)
      .arg(frame.tiltRad * kDegPerRad, 0, 'f', 1);
}

void PetDataPanel::onDataChanged() {
  data_ = workspace_.petData();
  hint_->setVisible(!data_);
  content_->setVisible(data_ != nullptr);
  image_.reset();
  imageView_ = -1;
  if (!data_) return;
  const pet::ListModeHeader& h = data_->header;
  const pet::ScannerModel& s = h.scanner;
  title_->setText(tr("<b>%1</b><br>%2")
                      .arg(data_->name.toHtmlEscaped(), data_->sourcePath.isEmpty()
                                                            ? tr("simulated in this window")
                                                            : data_->sourcePath.toHtmlEscaped()));
  scanner_->setText(tr("%1 · %2\n%3 rings × %4 crystals per ring (%5 crystals)\n"
                       "%6 mm diameter · %7 mm axial · acceptance ±%8°\n"
                       "TOF resolution %9 ps (%10 mm FWHM along the line)")
                        .arg(QString::fromStdString(s.name), layoutText(s))
                        .arg(s.rings)
                        .arg(s.crystalsPerRing)
                        .arg(s.crystalCount())
                        .arg(2.0 * s.radiusMm, 0, 'f', 0)
                        .arg(s.axialLengthMm(), 0, 'f', 0)
                        .arg(s.axialAcceptanceDeg, 0, 'g', 3)
                        .arg(s.tofFwhmPs, 0, 'f', 0)
                        .arg(pet::kSpeedOfLightMmPerPs * s.tofFwhmPs / 2.0, 0, 'f', 0));
  QString counts = tr("Prompts: %1\nDelayed (randoms estimate): %2")
                       .arg(countText(h.promptCount), countText(h.delayedCount));
  if (h.simulation)
    counts += tr("\nTrues: %1 · randoms: %2 (simulation truth)")
                  .arg(countText(h.simulation->trues), countText(h.simulation->randoms));
  counts += tr("\nAcquisition: %1 · %2 (half-life %3 min)")
                .arg(secondsText(h.acquisitionSeconds), QString::fromStdString(h.isotope))
                .arg(h.halfLifeS / 60.0, 0, 'f', 1);
  if (data_->simulation)
    counts += tr("\nSimulated in %1: %2 M decays in the band, %3 M decays/s on %4 threads")
                  .arg(secondsText(data_->simulation->seconds))
                  .arg(double(data_->simulation->bandDecays) / 1e6, 0, 'f', 1)
                  .arg(data_->simulation->seconds > 0 ? double(data_->simulation->bandDecays) /
                                                            data_->simulation->seconds / 1e6
                                                      : 0.0,
                       0, 'f', 2)
                  .arg(data_->simulation->threads);
  if (!h.source.empty()) counts += tr("\nSource: %1").arg(QString::fromStdString(h.source));
  counts_->setText(counts);

  views_ = pet::defaultPetViews(s);
  {
    const QSignalBlocker blockView(viewSlider_);
    const QSignalBlocker blockSlice(sliceSlider_);
    viewSlider_->setRange(0, views_.count() - 1);
    viewSlider_->setPageStep(views_.azimuths);
    // The middle tilt's first azimuth: lines of response across the transverse plane along x.
    viewSlider_->setValue(views_.view(0, views_.tilts / 2));
    sliceSlider_->setRange(0, static_cast<int>(data_->grid.shape.nz) - 1);
    sliceSlider_->setValue(static_cast<int>(data_->grid.shape.nz / 2));
  }
  viewLabel_->setText(viewText());
  imageLabel_->setPixmap({});
  imageLabel_->setText(tr("depositing…"));
  requestView();
}

void PetDataPanel::requestView() {
  if (!data_) return;
  pending_ = true;
  if (browsing_) {
    if (browseToken_) browseToken_->request();  // it ends soon; the pending view follows
    return;
  }
  startBrowse();
}

void PetDataPanel::startBrowse() {
  pending_ = false;
  if (!data_) return;
  browsing_ = true;
  if (browseThread_.joinable()) browseThread_.join();
  auto token = std::make_shared<CancelToken>();
  browseToken_ = token;
  const int view = viewSlider_->value();
  browseThread_ = std::thread([this, data = data_, views = views_, view, token] {
    std::shared_ptr<const Volume> image;
    try {
      const JobContext context(*token);
      image = std::make_shared<const Volume>(
          depositPetView(data->header.scanner, *data->events, data->grid, views, view, &context));
    } catch (const std::exception&) {
      image.reset();  // cancelled (a newer view follows) or refused: nothing to show
    }
    // Queued to this panel: dropped if the panel is gone (its destructor joins this thread).
    QMetaObject::invokeMethod(
        this, [this, view, image = std::move(image)] { onBrowsed(view, image); },
        Qt::QueuedConnection);
  });
}

void PetDataPanel::onBrowsed(int view, std::shared_ptr<const Volume> image) {
  browsing_ = false;
  if (image && view == viewSlider_->value()) {
    image_ = std::move(image);
    imageView_ = view;
    drawSlice();
    emit viewImageReady(view);
  }
  if (pending_ || (data_ && imageView_ != viewSlider_->value())) startBrowse();
}

void PetDataPanel::drawSlice() {
  if (!data_) return;
  const int slice = sliceSlider_->value();
  const VolumeGrid& grid = data_->grid;
  sliceLabel_->setText(tr("Slice %1 of %2 (z = %3 mm)")
                           .arg(slice + 1)
                           .arg(grid.shape.nz)
                           .arg(grid.originMm.z() + slice * grid.voxelSizeMm.z(), 0, 'f', 1));
  const bool sum = sumSlices_->isChecked();
  sliceSlider_->setEnabled(!sum);
  if (sum) sliceLabel_->setText(tr("All %1 slices, summed").arg(grid.shape.nz));
  if (!image_ || slice >= image_->nz()) return;
  const Volume& v = *image_;
  const std::vector<float> plane = planeOf(v, slice, sum);
  double total = 0;
  for (const float value : v.voxels()) total += value;
  // One scale for every slice of the view (its maximum), so slices compare.
  float peak = 0;
  for (const float value : sum ? std::span<const float>(plane) : v.voxels())
    peak = std::max(peak, value);
  const QImage picture = hotImage(plane, static_cast<int>(v.nx()), static_cast<int>(v.ny()), peak);
  imageLabel_->setPixmap(QPixmap::fromImage(
      picture.scaled(kImagePixels, kImagePixels, Qt::KeepAspectRatio, Qt::FastTransformation)));
  imageCaption_->setText(
      tr("%1 prompts in this view; up to %2 per pixel shown. Each prompt sits at its most "
         "likely point: the TOF blur (%3 mm) runs along the view's azimuth.")
          .arg(countText(static_cast<std::int64_t>(std::llround(total))))
          .arg(peak, 0, 'f', 0)
          .arg(pet::kSpeedOfLightMmPerPs * data_->header.scanner.tofFwhmPs / 2.0, 0, 'f', 0));
}

void PetDataPanel::openInSliceViews() {
  if (!image_ || !data_) return;
  const pet::ViewFrame frame = views_.frame(imageView_);
  const int index = workspace_.addVolume({tr("histo-image view %1 (azimuth %2°, tilt %3°; counts)")
                                              .arg(imageView_ + 1)
                                              .arg(frame.azimuthRad * kDegPerRad, 0, 'f', 1)
                                              .arg(frame.tiltRad * kDegPerRad, 0, 'f', 1),
                                          QString(), image_, -1});
  workspace_.setCurrentVolume(index);
}

}  // namespace tomowb::gui
