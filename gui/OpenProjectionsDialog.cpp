#include "gui/OpenProjectionsDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "gui/DataPanel.h"
#include "recon/io/GeometryImport.h"

namespace tomowb::gui {

namespace {

constexpr GeometryFileFormat kFormats[] = {
    GeometryFileFormat::Json, GeometryFileFormat::AstraCone, GeometryFileFormat::AstraParallel,
    GeometryFileFormat::Matrices, GeometryFileFormat::ImodTilts};

QWidget* pathRow(QLineEdit* edit, QPushButton* browse, QWidget* parent) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit, 1);
  layout->addWidget(browse);
  return row;
}

}  // namespace

OpenProjectionsDialog::OpenProjectionsDialog(const QString& projectionsPath, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Open projections"));
  setObjectName(QStringLiteral("openProjectionsDialog"));
  projections_ = new QLineEdit(projectionsPath, this);
  projections_->setObjectName(QStringLiteral("projectionsPath"));
  projections_->setPlaceholderText(tr(".npy, TIFF, MRC, MetaImage, raw + JSON, .rct"));
  auto* browseProjections = new QPushButton(tr("Browse…"), this);
  geometry_ = new QLineEdit(this);
  geometry_->setObjectName(QStringLiteral("geometryPath"));
  geometry_->setPlaceholderText(tr("none: the file's own geometry"));
  auto* browseGeometry = new QPushButton(tr("Browse…"), this);
  format_ = new QComboBox(this);
  format_->setObjectName(QStringLiteral("geometryFormat"));
  format_->addItem(tr("Recognise by content"));
  for (GeometryFileFormat f : kFormats)
    format_->addItem(QString::fromStdString(describe(f)), static_cast<int>(f));
  layout_ = new QComboBox(this);
  layout_->setObjectName(QStringLiteral("layout"));
  layout_->addItem(tr("By the geometry's view count"),
                   static_cast<int>(io::ProjectionLayout::Auto));
  layout_->addItem(tr("[views][rows][cols]: ours, TIGRE's"),
                   static_cast<int>(io::ProjectionLayout::Views));
  layout_->addItem(tr("[rows][views][cols]: ASTRA's 3-D data"),
                   static_cast<int>(io::ProjectionLayout::Astra));
  matrixPitch_ = new QDoubleSpinBox(this);
  matrixPitch_->setRange(1e-6, 1e3);
  matrixPitch_->setDecimals(4);
  matrixPitch_->setValue(1.0);
  matrixPitch_->setSuffix(tr(" mm"));
  matrixPitch_->setToolTip(
      tr("3x4 matrices fix the detector's directions, not its distance: the "
         "column pitch that places it (the reconstruction does not depend "
         "on it)"));
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("geometryStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setMinimumWidth(480);

  auto* form = new QFormLayout;
  form->addRow(tr("&Projections:"), pathRow(projections_, browseProjections, this));
  form->addRow(tr("&Geometry:"), pathRow(geometry_, browseGeometry, this));
  form->addRow(tr("Geometry &format:"), format_);
  form->addRow(tr("Stack &layout:"), layout_);
  form->addRow(tr("&Matrix pitch:"), matrixPitch_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  okButton_ = buttons->button(QDialogButtonBox::Ok);
  okButton_->setText(tr("Open"));
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(status_);
  layout->addWidget(buttons);

  connect(browseProjections, &QPushButton::clicked, this,
          &OpenProjectionsDialog::browseProjections);
  connect(browseGeometry, &QPushButton::clicked, this, &OpenProjectionsDialog::browseGeometry);
  connect(projections_, &QLineEdit::textChanged, this, &OpenProjectionsDialog::update);
  connect(geometry_, &QLineEdit::textChanged, this, &OpenProjectionsDialog::update);
  connect(format_, &QComboBox::currentIndexChanged, this, &OpenProjectionsDialog::update);
  connect(layout_, &QComboBox::currentIndexChanged, this, &OpenProjectionsDialog::update);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  update();
}

QString OpenProjectionsDialog::projectionsPath() const {
  return projections_->text().trimmed();
}
void OpenProjectionsDialog::setProjectionsPath(const QString& path) {
  projections_->setText(path);
}
QString OpenProjectionsDialog::geometryPath() const {
  return geometry_->text().trimmed();
}
void OpenProjectionsDialog::setGeometryPath(const QString& path) {
  geometry_->setText(path);
}

void OpenProjectionsDialog::setGeometryFormat(std::optional<GeometryFileFormat> format) {
  format_->setCurrentIndex(format ? format_->findData(static_cast<int>(*format)) : 0);
}

void OpenProjectionsDialog::setLayout(io::ProjectionLayout layout) {
  layout_->setCurrentIndex(layout_->findData(static_cast<int>(layout)));
}

io::GeometryAttachment OpenProjectionsDialog::attachment() const {
  io::GeometryAttachment a;
  a.geometryFile = geometryPath().toStdString();
  if (format_->currentIndex() > 0)
    a.geometryFormat = static_cast<GeometryFileFormat>(format_->currentData().toInt());
  a.layout = static_cast<io::ProjectionLayout>(layout_->currentData().toInt());
  a.matrixPixelPitchMm = matrixPitch_->value();
  return a;
}

QString OpenProjectionsDialog::statusText() const {
  return status_->text();
}

void OpenProjectionsDialog::browseProjections() {
  QSettings settings;
  const QString dir = settings.value("lastOpenDir", QDir::homePath()).toString();
  const QString file = QFileDialog::getOpenFileName(this, tr("Projections"), dir,
                                                    DataPanel::nameFilters().join(";;"));
  if (file.isEmpty()) return;
  settings.setValue("lastOpenDir", QFileInfo(file).absolutePath());
  projections_->setText(file);
}

void OpenProjectionsDialog::browseGeometry() {
  const QString dir = QFileInfo(projectionsPath()).absolutePath();
  const QString file = QFileDialog::getOpenFileName(
      this, tr("Geometry"), dir,
      tr("Geometry files (*.json *.txt *.csv *.vec *.tlt *.rawtlt);;All files (*)"));
  if (!file.isEmpty()) geometry_->setText(file);
}

void OpenProjectionsDialog::update() {
  QStringList lines;
  bool ok = !projectionsPath().isEmpty();
  const bool noGeometry = geometryPath().isEmpty();
  if (!ok) {
    lines << tr("Choose the projections file.");
  } else if (noGeometry) {
    try {
      if (io::carriesGeometry(projectionsPath().toStdString())) {
        lines << tr("%1 has a geometry of its own.").arg(QFileInfo(projectionsPath()).fileName());
      } else {
        ok = false;
        lines << tr("%1 has no geometry: choose a geometry file (our JSON, ASTRA vectors, 3x4 "
                    "matrices or IMOD tilt angles).")
                     .arg(QFileInfo(projectionsPath()).fileName());
      }
    } catch (const std::exception& e) {
      ok = false;
      lines << QString::fromStdString(e.what());
    }
  } else if (format_->currentIndex() > 0) {
    lines << tr("Geometry read as %1 (chosen).").arg(format_->currentText());
  } else {
    try {
      const DetectedGeometryFormat d = detectGeometryFileFormat(geometryPath().toStdString());
      lines << tr("Geometry recognised as %1: %2.")
                   .arg(QString::fromStdString(describe(d.format)),
                        QString::fromStdString(d.reason));
    } catch (const std::exception& e) {
      ok = false;
      lines << QString::fromStdString(e.what());
    }
  }
  matrixPitch_->setEnabled(!noGeometry);
  layout_->setEnabled(!noGeometry);
  status_->setText(lines.join(QLatin1Char('\n')));
  okButton_->setEnabled(ok);
}

}  // namespace tomowb::gui
