#include "gui/PreprocessDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "recon/core/Error.h"

namespace tomowb::gui {

namespace {
// Spin boxes accept more than the detector has, so that a crop outside it is shown as an error
// (in the core's words) instead of being clamped quietly.
constexpr int kMaxPixels = 1 << 20;
constexpr int kBinnings[] = {1, 2, 4, 8};

QSpinBox* pixelSpin(int minimum, int value, QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(minimum, kMaxPixels);
  spin->setValue(value);
  spin->setSuffix(QObject::tr(" px"));
  return spin;
}

// A form label whose mnemonic focuses `buddy` (addRow with a layout would show the '&').
QLabel* buddyLabel(const QString& text, QWidget* buddy, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setBuddy(buddy);
  return label;
}

// Pixel pitch in the unit that reads: nm for electron microscopy, else mm.
QString pitchText(double mm) {
  if (mm > 0 && mm < 1e-3) return QObject::tr("%1 nm").arg(mm * 1e6, 0, 'g', 4);
  return QObject::tr("%1 mm").arg(mm, 0, 'g', 4);
}
}  // namespace

PreprocessDialog::PreprocessDialog(const Geometry& geometry, const QString& sourceName,
                                   QWidget* parent)
    : QDialog(parent), geometry_(geometry) {
  setObjectName(QStringLiteral("preprocessDialog"));
  setWindowTitle(tr("Preprocess projections"));
  const int cols = static_cast<int>(geometry.detector().cols);
  const int rows = static_cast<int>(geometry.detector().rows);

  auto* layout = new QVBoxLayout(this);
  auto* source =
      new QLabel(tr("<b>%1</b><br>%2 views · %3 × %4 px detector · %5 pitch")
                     .arg(sourceName.toHtmlEscaped())
                     .arg(geometry.viewCount())
                     .arg(cols)
                     .arg(rows)
                     .arg(pitchText(geometry.viewCount() > 0 ? geometry.view(0).u.norm() : 0.0)),
                 this);
  source->setWordWrap(true);
  layout->addWidget(source);

  auto* crop = new QGroupBox(tr("Crop"), this);
  auto* cropForm = new QFormLayout(crop);
  auto* colRow = new QHBoxLayout;
  firstCol_ = pixelSpin(0, 0, crop);
  firstCol_->setObjectName(QStringLiteral("preprocessFirstCol"));
  firstCol_->setAccessibleName(tr("First column"));
  cols_ = pixelSpin(1, cols, crop);
  cols_->setObjectName(QStringLiteral("preprocessCols"));
  cols_->setAccessibleName(tr("Columns"));
  colRow->addWidget(firstCol_);
  colRow->addWidget(buddyLabel(tr("c&olumns"), cols_, crop));
  colRow->addWidget(cols_);
  cropForm->addRow(buddyLabel(tr("First &column"), firstCol_, crop), colRow);
  auto* rowRow = new QHBoxLayout;
  firstRow_ = pixelSpin(0, 0, crop);
  firstRow_->setObjectName(QStringLiteral("preprocessFirstRow"));
  firstRow_->setAccessibleName(tr("First row"));
  rows_ = pixelSpin(1, rows, crop);
  rows_->setObjectName(QStringLiteral("preprocessRows"));
  rows_->setAccessibleName(tr("Rows"));
  rowRow->addWidget(firstRow_);
  rowRow->addWidget(buddyLabel(tr("ro&ws"), rows_, crop));
  rowRow->addWidget(rows_);
  cropForm->addRow(buddyLabel(tr("First &row"), firstRow_, crop), rowRow);
  layout->addWidget(crop);

  auto* form = new QFormLayout;
  binning_ = new QComboBox(this);
  binning_->setObjectName(QStringLiteral("preprocessBinning"));
  for (int b : kBinnings) binning_->addItem(b == 1 ? tr("1 (none)") : tr("%1 × %1").arg(b), b);
  binning_->setToolTip(tr("Average b × b pixel blocks; the pixel pitch grows by b"));
  form->addRow(tr("&Binning"), binning_);

  log_ = new QCheckBox(tr("&Log transform: −ln(I / I0)"), this);
  log_->setObjectName(QStringLiteral("preprocessLog"));
  log_->setToolTip(tr("Turn transmitted intensity into line integrals (absorption contrast)"));
  form->addRow(QString(), log_);
  i0_ = new QLineEdit(this);
  i0_->setObjectName(QStringLiteral("preprocessI0"));
  i0_->setPlaceholderText(tr("per view: 99.5th percentile"));
  i0_->setToolTip(
      tr("The unattenuated intensity; blank estimates it per view as the 99.5th "
         "percentile of the view's positive pixels"));
  i0_->setEnabled(false);
  form->addRow(tr("&I0"), i0_);

  normalisation_ = new QComboBox(this);
  normalisation_->setObjectName(QStringLiteral("preprocessNormalisation"));
  normalisation_->addItem(tr("None"), static_cast<int>(preprocess::ViewNormalisation::None));
  normalisation_->addItem(tr("Divide by the view's mean"),
                          static_cast<int>(preprocess::ViewNormalisation::DivideByMean));
  normalisation_->addItem(tr("Zero mean, unit variance"),
                          static_cast<int>(preprocess::ViewNormalisation::ZeroMeanUnitVariance));
  form->addRow(tr("Per-view &normalisation"), normalisation_);
  layout->addLayout(form);

  resultLabel_ = new QLabel(this);
  resultLabel_->setObjectName(QStringLiteral("preprocessResult"));
  resultLabel_->setWordWrap(true);
  layout->addWidget(resultLabel_);
  problemLabel_ = new QLabel(this);
  problemLabel_->setObjectName(QStringLiteral("preprocessProblem"));
  problemLabel_->setWordWrap(true);
  problemLabel_->setTextFormat(Qt::PlainText);
  problemLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(problemLabel_);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  okButton_ = buttons->button(QDialogButtonBox::Ok);
  okButton_->setText(tr("&Preprocess"));
  okButton_->setToolTip(tr("Run it in the background: the result is a new projections entry"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  for (QSpinBox* spin : {firstCol_, cols_, firstRow_, rows_})
    connect(spin, &QSpinBox::valueChanged, this, &PreprocessDialog::validate);
  connect(binning_, &QComboBox::currentIndexChanged, this, &PreprocessDialog::validate);
  connect(normalisation_, &QComboBox::currentIndexChanged, this, &PreprocessDialog::validate);
  connect(log_, &QCheckBox::toggled, this, [this](bool on) {
    i0_->setEnabled(on);
    validate();
  });
  connect(i0_, &QLineEdit::textChanged, this, &PreprocessDialog::validate);
  validate();
}

preprocess::TiltSeriesPreprocessing PreprocessDialog::params() const {
  preprocess::TiltSeriesPreprocessing p;
  p.firstCol = firstCol_->value();
  p.cols = cols_->value();
  p.firstRow = firstRow_->value();
  p.rows = rows_->value();
  p.binning = binning_->currentData().toInt();
  p.logTransform = log_->isChecked();
  const QString i0 = i0_->text().trimmed();
  p.i0 = i0.isEmpty() ? 0.0 : i0.toDouble();  // validate() rejects what is not a number
  p.normalisation =
      static_cast<preprocess::ViewNormalisation>(normalisation_->currentData().toInt());
  return p;
}

void PreprocessDialog::setParams(const preprocess::TiltSeriesPreprocessing& p) {
  firstCol_->setValue(static_cast<int>(p.firstCol));
  cols_->setValue(p.cols > 0 ? static_cast<int>(p.cols)
                             : static_cast<int>(geometry_.detector().cols - p.firstCol));
  firstRow_->setValue(static_cast<int>(p.firstRow));
  rows_->setValue(p.rows > 0 ? static_cast<int>(p.rows)
                             : static_cast<int>(geometry_.detector().rows - p.firstRow));
  const int binningIndex = binning_->findData(p.binning);
  if (binningIndex >= 0) binning_->setCurrentIndex(binningIndex);
  log_->setChecked(p.logTransform);
  i0_->setText(p.i0 > 0 ? QString::number(p.i0, 'g', 10) : QString());
  normalisation_->setCurrentIndex(normalisation_->findData(static_cast<int>(p.normalisation)));
  validate();
}

void PreprocessDialog::validate() {
  problem_.clear();
  QStringList warnings;
  const preprocess::TiltSeriesPreprocessing p = params();
  const QString i0 = i0_->text().trimmed();
  bool isNumber = true;
  const double i0Value = i0.isEmpty() ? 0.0 : i0.toDouble(&isNumber);
  if (p.logTransform && !i0.isEmpty() && (!isNumber || !std::isfinite(i0Value) || i0Value <= 0))
    problem_ =
        tr("I0: must be a positive number, or blank to estimate it per view; got '%1'").arg(i0);
  Geometry result;
  if (problem_.isEmpty()) {
    try {
      std::vector<std::string> coreWarnings;
      result = preprocess::preprocessedGeometry(geometry_, p, &coreWarnings);
      for (const std::string& w : coreWarnings) warnings << QString::fromStdString(w);
    } catch (const std::exception& e) {
      problem_ = QString::fromStdString(e.what());
    }
  }
  if (problem_.isEmpty()) {
    resultLabel_->setText(
        tr("<b>Result:</b> %1 views · %2 × %3 px · %4 pitch")
            .arg(result.viewCount())
            .arg(result.detector().cols)
            .arg(result.detector().rows)
            .arg(pitchText(result.viewCount() > 0 ? result.view(0).u.norm() : 0.0)));
    problemLabel_->setText(warnings.join(QStringLiteral("\n")));
    problemLabel_->setStyleSheet(QString());
  } else {
    resultLabel_->setText(tr("<b>Result:</b> —"));
    problemLabel_->setText(QStringLiteral("\u26a0 ") + problem_);
    problemLabel_->setStyleSheet(QStringLiteral("color: #c62828;"));
  }
  problemLabel_->setVisible(!problemLabel_->text().isEmpty());
  okButton_->setEnabled(problem_.isEmpty());
}

}  // namespace tomowb::gui
