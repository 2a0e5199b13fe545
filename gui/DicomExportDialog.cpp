// DicomExportDialog: see the header.
#include "gui/DicomExportDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMetaObject>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <new>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomUid.h"
#include "recon/job/JobContext.h"
#include "recon/job/ProgressSink.h"

namespace tomowb::gui {

namespace {

using io::dicom::DicomCompression;
using io::dicom::DicomExportOptions;
using io::dicom::DicomExportPlan;
using io::dicom::DicomObjectType;
using io::dicom::DicomValueMode;
using io::dicom::PatientPosition;

// Planning reads every exported voxel once: up to this many voxels it follows each keystroke,
// above it waits for a pause in the typing (a 512^3 volume takes about 0.2 s per pass).
constexpr std::int64_t kImmediatePlanVoxels = 8 << 20;
constexpr int kPlanDelayMs = 300;
// Progress reaches the event loop at most 20 times a second.
constexpr auto kProgressInterval = std::chrono::milliseconds(50);
constexpr int kPreviewEdge = 256;
constexpr int kProgressShowDelayMs = 300;  // pixels of the preview's longer side
const char* const kLastParentKey = "dicomExport/lastParentFolder";

// PS3.3 C.8.9.1.1.3 Units (0054,1001): the usual ones first; PROPCNTS (proportional to counts)
// is what an uncalibrated reconstruction is.
const char* const kPetUnits[] = {"PROPCNTS", "BQML", "CNTS", "CPS",     "PROPCPS", "GML",
                                 "1CM",      "PCNT", "NONE", "MGMINML", "UMOLML"};

std::optional<DicomExportDialog::PreviousStudy>& previousStudyStorage() {
  // This application session only (GUI thread): a new session starts a new study.
  static std::optional<DicomExportDialog::PreviousStudy> previous;
  return previous;
}

// Calls a function for each progress report (the dialog's throttled forwarding).
struct FunctionProgressSink : ProgressSink {
  std::function<void(double)> onReport;
  void report(std::string_view, double fraction) override { onReport(fraction); }
};

QString humanBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return QStringLiteral("%1 %2").arg(bytes, 0, 'f', unit == 0 ? 0 : 1).arg(units[unit]);
}

// "1 file", "6 files" (tr's %n needs a translation to say it in English).
QString filesText(std::int64_t files) {
  return files == 1 ? DicomExportDialog::tr("1 file")
                    : DicomExportDialog::tr("%1 files").arg(files);
}

QString number(double value) {
  return QString::number(value, 'g', 6);
}

QString shortNumber(double value) {
  return QString::number(value, 'g', 4);
}

QString typeDescription(DicomObjectType type) {
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

// A folder name from a series description: letters, digits, '.', '-' and '_' only.
QString safeFolderName(const QString& text) {
  QString name = text.trimmed();
  name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
  name.remove(QRegularExpression(QStringLiteral("^[-.]+|-+$")));
  if (name.isEmpty()) name = QStringLiteral("dicom-series");
  return name.left(80);
}

// `parent/name`, or `parent/name-2`, `-3`... when that exists: a suggestion never needs replacing.
QString uniqueFolder(const QString& parent, const QString& name) {
  const QDir dir(parent);
  QString candidate = dir.filePath(name);
  for (int i = 2; QFileInfo::exists(candidate) && i < 1000; ++i)
    candidate = dir.filePath(QStringLiteral("%1-%2").arg(name).arg(i));
  return candidate;
}

bool isNonEmptyFolder(const QString& path) {
  const QFileInfo info(path);
  return info.isDir() &&
         !QDir(path).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
}

QSpinBox* indexSpin(std::int64_t count, std::int64_t value, const QString& accessibleName,
                    QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(0, static_cast<int>(std::max<std::int64_t>(0, count - 1)));
  spin->setValue(static_cast<int>(value));
  spin->setAccessibleName(accessibleName);
  return spin;
}

QLabel* buddyLabel(const QString& text, QWidget* buddy, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setBuddy(buddy);
  return label;
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

}  // namespace

std::optional<DicomExportDialog::PreviousStudy> DicomExportDialog::previousStudy() {
  return previousStudyStorage();
}

void DicomExportDialog::forgetPreviousStudy() {
  previousStudyStorage().reset();
}

DicomExportDialog::DicomExportDialog(std::shared_ptr<const Volume> volume,
                                     const QString& volumeName,
                                     io::dicom::DicomProvenance provenance, QWidget* parent)
    : QDialog(parent),
      volume_(std::move(volume)),
      provenance_(std::move(provenance)),
      volumeName_(volumeName) {
  setObjectName(QStringLiteral("dicomExportDialog"));
  setWindowTitle(tr("Export DICOM series"));
  confirmReplace_ = [this](const QString& folder) {
    const auto answer = QMessageBox::question(
        this, tr("Replace folder?"),
        tr("%1 already exists and is not empty.\n\nReplace its contents with the new series? "
           "The old files are removed only once the new series is complete.")
            .arg(QDir::toNativeSeparators(folder)),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    return answer == QMessageBox::Yes;
  };
  summaryTimer_ = new QTimer(this);
  summaryTimer_->setSingleShot(true);
  summaryTimer_->setInterval(kPlanDelayMs);
  connect(summaryTimer_, &QTimer::timeout, this, &DicomExportDialog::refreshSummary);
  buildForm(volumeName);
  buildProgressDialog();
  updateEnabledFields();
  updateSuggestedFolder();
  refreshSummary();
}

DicomExportDialog::~DicomExportDialog() {
  if (worker_.joinable()) {
    cancel_->request();
    worker_.join();  // stops within one slice; the core removes its temporary folder
  }
}

void DicomExportDialog::buildForm(const QString& volumeName) {
  const Volume& v = *volume_;
  auto* layout = new QVBoxLayout(this);
  const Eigen::Vector3d& s = v.voxelSizeMm();
  auto* source = new QLabel(tr("<b>%1</b> · %2 × %3 × %4 voxels of %5 × %6 × %7 mm")
                                .arg(volumeName.toHtmlEscaped())
                                .arg(v.nx())
                                .arg(v.ny())
                                .arg(v.nz())
                                .arg(number(s.x()), number(s.y()), number(s.z())),
                            this);
  source->setWordWrap(true);
  layout->addWidget(source);

  auto* columns = new QHBoxLayout;
  auto* left = new QVBoxLayout;
  auto* middle = new QVBoxLayout;
  auto* right = new QVBoxLayout;
  columns->addLayout(left, 3);
  columns->addLayout(middle, 3);
  columns->addLayout(right, 3);
  layout->addLayout(columns, 1);

  // --- Files: object type, compression, patient position ---
  auto* files = new QGroupBox(tr("Files"), this);
  auto* filesForm = new QFormLayout(files);
  type_ = new QComboBox(files);
  type_->setObjectName(QStringLiteral("dicomType"));
  for (const DicomObjectType t :
       {DicomObjectType::CtImage, DicomObjectType::EnhancedCtImage, DicomObjectType::PetImage})
    type_->addItem(typeDescription(t), static_cast<int>(t));
  type_->setToolTip(
      tr("CT Image is read by every tool; Enhanced CT keeps the series in one file; PET Image "
         "for emission reconstructions"));
  filesForm->addRow(tr("&Object"), type_);
  compression_ = new QComboBox(files);
  compression_->setObjectName(QStringLiteral("dicomCompression"));
  compression_->addItem(tr("None (every reader takes it)"),
                        static_cast<int>(DicomCompression::None));
  compression_->addItem(tr("RLE lossless"), static_cast<int>(DicomCompression::RleLossless));
  compression_->addItem(tr("JPEG-LS lossless"), static_cast<int>(DicomCompression::JpegLsLossless));
  compression_->addItem(tr("JPEG lossless"), static_cast<int>(DicomCompression::JpegLossless));
  compression_->setToolTip(tr("All choices are lossless: the stored integers are kept exactly"));
  filesForm->addRow(tr("Co&mpression"), compression_);
  position_ = new QComboBox(files);
  position_->setObjectName(QStringLiteral("dicomPatientPosition"));
  for (const PatientPosition p : io::dicom::allPatientPositions())
    position_->addItem(QStringLiteral("%1 · %2").arg(QString::fromStdString(toString(p)),
                                                     QString::fromStdString(describe(p))),
                       static_cast<int>(p));
  position_->setToolTip(
      tr("How the workbench's axes map to the patient's: head first supine keeps x, y, z as "
         "left, posterior, superior"));
  filesForm->addRow(tr("Patient &position"), position_);
  left->addWidget(files);

  // --- Values ---
  auto* valuesBox = new QGroupBox(tr("Values"), this);
  auto* valuesForm = new QFormLayout(valuesBox);
  values_ = new QComboBox(valuesBox);
  values_->setObjectName(QStringLiteral("dicomValues"));
  values_->addItem(tr("Hounsfield units (HU)"), static_cast<int>(DicomValueMode::Hounsfield));
  values_->addItem(tr("The volume's own values"), static_cast<int>(DicomValueMode::Native));
  valuesForm->addRow(tr("&Values"), values_);
  water_ = new QDoubleSpinBox(valuesBox);
  water_->setObjectName(QStringLiteral("dicomWater"));
  water_->setDecimals(5);
  water_->setRange(0.0, 100.0);
  water_->setSingleStep(0.0005);
  water_->setSuffix(tr(" /mm"));
  water_->setValue(DicomExportOptions{}.waterAttenuationPerMm);
  water_->setToolTip(tr("HU = 1000 (μ − μwater) / μwater"));
  valuesForm->addRow(tr("&Water μ"), water_);
  auto* waterHint =
      new QLabel(tr("water ≈ 0.0206 /mm near 60 keV (the demo phantoms' value)"), valuesBox);
  waterHint->setWordWrap(true);
  QFont small = waterHint->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  waterHint->setFont(small);
  valuesForm->addRow(QString(), waterHint);
  nativeUnits_ = new QLineEdit(QString::fromStdString(DicomExportOptions{}.nativeUnits), valuesBox);
  nativeUnits_->setObjectName(QStringLiteral("dicomNativeUnits"));
  nativeUnits_->setToolTip(tr("What the volume's values are; written in the series description"));
  valuesForm->addRow(tr("&Units"), nativeUnits_);
  petUnits_ = new QComboBox(valuesBox);
  petUnits_->setObjectName(QStringLiteral("dicomPetUnits"));
  for (const char* unit : kPetUnits) petUnits_->addItem(QString::fromLatin1(unit));
  petUnits_->setToolTip(
      tr("PET Units (0054,1001): PROPCNTS (proportional to counts) for an uncalibrated "
         "reconstruction, BQML for activity concentration"));
  valuesForm->addRow(tr("PET un&its"), petUnits_);
  left->addWidget(valuesBox);

  // --- Slices and crop (first and last, inclusive, 0-based like the slice views) ---
  auto* selection = new QGroupBox(tr("Slices and crop"), this);
  auto* grid = new QGridLayout(selection);
  grid->addWidget(new QLabel(tr("first"), selection), 0, 1);
  grid->addWidget(new QLabel(tr("last"), selection), 0, 2);
  struct Axis {
    QString label;
    std::int64_t count;
    QSpinBox** first;
    QSpinBox** last;
    const char* firstName;
    const char* lastName;
  };
  const Axis axes[] = {
      {tr("&Slices (z)"), v.nz(), &firstSlice_, &lastSlice_, "dicomFirstSlice", "dicomLastSlice"},
      {tr("Co&lumns (x)"), v.nx(), &firstX_, &lastX_, "dicomFirstX", "dicomLastX"},
      {tr("Rows (&y)"), v.ny(), &firstY_, &lastY_, "dicomFirstY", "dicomLastY"},
  };
  int row = 1;
  for (const Axis& axis : axes) {
    const QString spoken = QString(axis.label).remove(QLatin1Char('&'));
    *axis.first = indexSpin(axis.count, 0, spoken + tr(" first"), selection);
    *axis.last = indexSpin(axis.count, axis.count - 1, spoken + tr(" last"), selection);
    (*axis.first)->setObjectName(QString::fromLatin1(axis.firstName));
    (*axis.last)->setObjectName(QString::fromLatin1(axis.lastName));
    grid->addWidget(buddyLabel(axis.label, *axis.first, selection), row, 0);
    grid->addWidget(*axis.first, row, 1);
    grid->addWidget(*axis.last, row, 2);
    grid->addWidget(new QLabel(tr("of %1").arg(axis.count), selection), row, 3);
    ++row;
  }
  auto* whole = new QPushButton(tr("W&hole volume"), selection);
  whole->setObjectName(QStringLiteral("dicomWholeVolume"));
  connect(whole, &QPushButton::clicked, this, [this] {
    for (QSpinBox* first : {firstSlice_, firstX_, firstY_}) first->setValue(0);
    for (QSpinBox* last : {lastSlice_, lastX_, lastY_}) last->setValue(last->maximum());
  });
  grid->addWidget(whole, row, 1, 1, 2);
  left->addWidget(selection);
  left->addStretch(1);

  // --- Patient, study and series ---
  const io::dicom::DicomIdentity defaults;
  auto* identity = new QGroupBox(tr("Patient, study and series"), this);
  auto* idForm = new QFormLayout(identity);
  patientName_ = new QLineEdit(QString::fromStdString(defaults.patientName), identity);
  patientName_->setObjectName(QStringLiteral("dicomPatientName"));
  idForm->addRow(tr("Patient &name"), patientName_);
  patientId_ = new QLineEdit(QString::fromStdString(defaults.patientId), identity);
  patientId_->setObjectName(QStringLiteral("dicomPatientId"));
  idForm->addRow(tr("Patient I&D"), patientId_);
  birthDate_ = new QLineEdit(identity);
  birthDate_->setObjectName(QStringLiteral("dicomBirthDate"));
  birthDate_->setPlaceholderText(tr("YYYYMMDD (optional)"));
  idForm->addRow(tr("&Birth date"), birthDate_);
  sex_ = new QComboBox(identity);
  sex_->setObjectName(QStringLiteral("dicomSex"));
  sex_->addItem(tr("(not given)"), QString());
  sex_->addItem(tr("M (male)"), QStringLiteral("M"));
  sex_->addItem(tr("F (female)"), QStringLiteral("F"));
  sex_->addItem(tr("O (other)"), QStringLiteral("O"));
  idForm->addRow(tr("Sex"), sex_);
  previousStudy_ = new QCheckBox(tr("&Add to the study of the previous export"), identity);
  previousStudy_->setObjectName(QStringLiteral("dicomPreviousStudy"));
  const auto previous = previousStudy();
  previousStudy_->setEnabled(previous.has_value());
  previousStudy_->setToolTip(
      previous ? tr("Same patient and study as the last export of this session (%1); the series "
                    "is added beside it")
                     .arg(QString::fromStdString(previous->identity.studyDescription))
               : tr("No export yet in this session: the series starts a new study"));
  idForm->addRow(QString(), previousStudy_);
  studyDescription_ = new QLineEdit(QString::fromStdString(defaults.studyDescription), identity);
  studyDescription_->setObjectName(QStringLiteral("dicomStudyDescription"));
  idForm->addRow(tr("S&tudy description"), studyDescription_);
  studyId_ = new QLineEdit(QString::fromStdString(defaults.studyId), identity);
  studyId_->setObjectName(QStringLiteral("dicomStudyId"));
  idForm->addRow(tr("Study ID"), studyId_);
  accession_ = new QLineEdit(identity);
  accession_->setObjectName(QStringLiteral("dicomAccession"));
  accession_->setPlaceholderText(tr("(optional)"));
  idForm->addRow(tr("Accession number"), accession_);
  seriesDescription_ = new QLineEdit(identity);
  seriesDescription_->setObjectName(QStringLiteral("dicomSeriesDescription"));
  seriesDescription_->setPlaceholderText(defaultSeriesDescription());
  seriesDescription_->setMaxLength(64);  // LO
  idForm->addRow(tr("S&eries description"), seriesDescription_);
  seriesNumber_ = new QSpinBox(identity);
  seriesNumber_->setObjectName(QStringLiteral("dicomSeriesNumber"));
  seriesNumber_->setRange(1, 99999);
  seriesNumber_->setValue(defaults.seriesNumber);
  idForm->addRow(tr("Series number"), seriesNumber_);
  uidRoot_ = new QLineEdit(identity);
  uidRoot_->setObjectName(QStringLiteral("dicomUidRoot"));
  uidRoot_->setPlaceholderText(tr("empty: 2.25.<UUID> UIDs"));
  uidRoot_->setToolTip(
      tr("Your organisation's registered UID root (at most 40 characters); empty makes UIDs "
         "from random UUIDs, which need no registration"));
  idForm->addRow(tr("UID root"), uidRoot_);
  middle->addWidget(identity);
  middle->addStretch(1);

  // --- Preview and summary ---
  auto* previewBox = new QGroupBox(tr("First exported slice"), this);
  auto* previewLayout = new QVBoxLayout(previewBox);
  preview_ = new QLabel(previewBox);
  preview_->setObjectName(QStringLiteral("dicomPreview"));
  preview_->setFixedSize(kPreviewEdge, kPreviewEdge);
  preview_->setAlignment(Qt::AlignCenter);
  preview_->setStyleSheet(QStringLiteral("background: black; color: #bbbbbb;"));
  previewLayout->addWidget(preview_, 0, Qt::AlignHCenter);
  previewCaption_ = new QLabel(previewBox);
  previewCaption_->setObjectName(QStringLiteral("dicomPreviewCaption"));
  previewCaption_->setWordWrap(true);
  previewCaption_->setFont(small);
  previewLayout->addWidget(previewCaption_);
  right->addWidget(previewBox);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("dicomSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setMinimumWidth(kPreviewEdge);
  summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  right->addWidget(summary_, 1);

  // --- Output folder and buttons ---
  auto* folderRow = new QHBoxLayout;
  folder_ = new QLineEdit(this);
  folder_->setObjectName(QStringLiteral("dicomFolder"));
  folder_->setToolTip(
      tr("The series goes into this folder (made if needed); an existing non-empty folder is "
         "replaced only if you agree"));
  auto* browse = new QPushButton(tr("B&rowse…"), this);
  browse->setObjectName(QStringLiteral("dicomBrowse"));
  folderRow->addWidget(buddyLabel(tr("&Folder"), folder_, this));
  folderRow->addWidget(folder_, 1);
  folderRow->addWidget(browse);
  layout->addLayout(folderRow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  exportButton_ = buttons->addButton(tr("E&xport"), QDialogButtonBox::AcceptRole);
  exportButton_->setObjectName(QStringLiteral("dicomExportButton"));
  exportButton_->setDefault(true);
  layout->addWidget(buttons);

  connect(browse, &QPushButton::clicked, this, &DicomExportDialog::browse);
  connect(exportButton_, &QPushButton::clicked, this, [this] { startExport(); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(folder_, &QLineEdit::textEdited, this, [this] { folderEdited_ = true; });
  connect(folder_, &QLineEdit::textChanged, this, [this] { updateExportButton(); });
  connect(previousStudy_, &QCheckBox::toggled, this, &DicomExportDialog::onPreviousStudyToggled);
  connect(type_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabledFields();
    scheduleSummary();
  });
  connect(values_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabledFields();
    scheduleSummary();
  });
  for (QComboBox* combo : {compression_, petUnits_, position_, sex_})
    connect(combo, &QComboBox::currentIndexChanged, this, &DicomExportDialog::scheduleSummary);
  connect(water_, &QDoubleSpinBox::valueChanged, this, &DicomExportDialog::scheduleSummary);
  for (QSpinBox* spin : {firstSlice_, lastSlice_, firstX_, lastX_, firstY_, lastY_, seriesNumber_})
    connect(spin, &QSpinBox::valueChanged, this, &DicomExportDialog::scheduleSummary);
  for (QLineEdit* edit : {nativeUnits_, patientName_, patientId_, birthDate_, studyDescription_,
                          studyId_, accession_, uidRoot_})
    connect(edit, &QLineEdit::textChanged, this, &DicomExportDialog::scheduleSummary);
  connect(seriesDescription_, &QLineEdit::textChanged, this, [this] {
    updateSuggestedFolder();
    scheduleSummary();
  });
}

void DicomExportDialog::buildProgressDialog() {
  // A plain window-modal dialog rather than QProgressDialog, whose setValue() processes events
  // when modal: the export's end could then close this dialog inside its own progress update.
  progress_ = new QDialog(this);
  progress_->setObjectName(QStringLiteral("dicomExportProgress"));
  progress_->setWindowTitle(tr("Export DICOM series"));
  progress_->setWindowModality(Qt::WindowModal);
  auto* layout = new QVBoxLayout(progress_);
  progressLabel_ = new QLabel(progress_);
  progressLabel_->setWordWrap(true);
  progressLabel_->setMinimumWidth(360);
  layout->addWidget(progressLabel_);
  progressBar_ = new QProgressBar(progress_);
  progressBar_->setRange(0, 1000);
  progressBar_->setTextVisible(true);
  layout->addWidget(progressBar_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, progress_);
  progressCancel_ = buttons->button(QDialogButtonBox::Cancel);
  progressCancel_->setToolTip(tr("Stop: nothing of the series is kept"));
  layout->addWidget(buttons);
  // Cancel and Esc (rejected) stop the export between slices; the core removes what it wrote.
  const auto cancel = [this] {
    cancelExport();
    progressLabel_->setText(tr("Cancelling: removing what was written…"));
    progressCancel_->setEnabled(false);
  };
  connect(buttons, &QDialogButtonBox::rejected, this, cancel);
  connect(progress_, &QDialog::rejected, this, [this, cancel] {
    if (isExporting()) cancel();
  });
}

QString DicomExportDialog::defaultSeriesDescription() const {
  if (!provenance_.algorithm.empty())
    return QString::fromStdString(provenance_.algorithm + " " + provenance_.variant).trimmed();
  return volumeName_.left(64);
}

DicomExportOptions DicomExportDialog::options() const {
  DicomExportOptions o;
  o.type = static_cast<DicomObjectType>(type_->currentData().toInt());
  o.compression = static_cast<DicomCompression>(compression_->currentData().toInt());
  o.values = static_cast<DicomValueMode>(values_->currentData().toInt());
  o.waterAttenuationPerMm = water_->value();
  o.nativeUnits = nativeUnits_->text().trimmed().toStdString();
  o.petUnits = petUnits_->currentText().toStdString();
  o.patientPosition = static_cast<PatientPosition>(position_->currentData().toInt());
  o.slices = {firstSlice_->value(), std::int64_t{lastSlice_->value()} + 1};
  o.cropX = {firstX_->value(), std::int64_t{lastX_->value()} + 1};
  o.cropY = {firstY_->value(), std::int64_t{lastY_->value()} + 1};
  io::dicom::DicomIdentity& id = o.identity;
  id.patientName = patientName_->text().trimmed().toStdString();
  id.patientId = patientId_->text().trimmed().toStdString();
  id.patientBirthDate = birthDate_->text().trimmed().toStdString();
  id.patientSex = sex_->currentData().toString().toStdString();
  id.studyDescription = studyDescription_->text().trimmed().toStdString();
  id.studyId = studyId_->text().trimmed().toStdString();
  id.accessionNumber = accession_->text().trimmed().toStdString();
  id.seriesNumber = seriesNumber_->value();
  id.seriesDescription = seriesDescription_->text().trimmed().toStdString();
  // Without a run behind the volume the core has no "<algorithm> <variant>": use its name.
  if (id.seriesDescription.empty() && provenance_.algorithm.empty())
    id.seriesDescription = defaultSeriesDescription().toStdString();
  id.uidRoot = uidRoot_->text().trimmed().toStdString();
  if (previousStudy_->isChecked())
    if (const auto previous = previousStudy()) {
      const io::dicom::DicomIdentity& p = previous->identity;
      id.studyInstanceUid = p.studyInstanceUid;
      id.studyDate = p.studyDate;
      id.studyTime = p.studyTime;
      id.referringPhysicianName = p.referringPhysicianName;
      id.institutionName = p.institutionName;
    }
  o.provenance = provenance_;
  return o;
}

void DicomExportDialog::setOptions(const DicomExportOptions& o) {
  type_->setCurrentIndex(type_->findData(static_cast<int>(o.type)));
  compression_->setCurrentIndex(compression_->findData(static_cast<int>(o.compression)));
  values_->setCurrentIndex(values_->findData(static_cast<int>(o.values)));
  water_->setValue(o.waterAttenuationPerMm);
  nativeUnits_->setText(QString::fromStdString(o.nativeUnits));
  const int pet = petUnits_->findText(QString::fromStdString(o.petUnits));
  if (pet >= 0) petUnits_->setCurrentIndex(pet);
  position_->setCurrentIndex(position_->findData(static_cast<int>(o.patientPosition)));
  const auto setRange = [](const io::dicom::IndexRange& r, QSpinBox* first, QSpinBox* last) {
    first->setValue(static_cast<int>(r.begin));
    last->setValue(r.end < 0 ? last->maximum() : static_cast<int>(r.end - 1));
  };
  setRange(o.slices, firstSlice_, lastSlice_);
  setRange(o.cropX, firstX_, lastX_);
  setRange(o.cropY, firstY_, lastY_);
  const io::dicom::DicomIdentity& id = o.identity;
  patientName_->setText(QString::fromStdString(id.patientName));
  patientId_->setText(QString::fromStdString(id.patientId));
  birthDate_->setText(QString::fromStdString(id.patientBirthDate));
  const int sex = sex_->findData(QString::fromStdString(id.patientSex));
  sex_->setCurrentIndex(std::max(0, sex));
  studyDescription_->setText(QString::fromStdString(id.studyDescription));
  studyId_->setText(QString::fromStdString(id.studyId));
  accession_->setText(QString::fromStdString(id.accessionNumber));
  seriesDescription_->setText(QString::fromStdString(id.seriesDescription));
  seriesNumber_->setValue(id.seriesNumber);
  uidRoot_->setText(QString::fromStdString(id.uidRoot));
  provenance_ = o.provenance;
  seriesDescription_->setPlaceholderText(defaultSeriesDescription());
  updateEnabledFields();
  refreshSummary();
}

QString DicomExportDialog::outputFolder() const {
  return folder_->text().trimmed();
}

void DicomExportDialog::setOutputFolder(const QString& folder) {
  folderEdited_ = true;
  folder_->setText(folder);
}

void DicomExportDialog::updateEnabledFields() {
  const auto type = static_cast<DicomObjectType>(type_->currentData().toInt());
  const bool pet = type == DicomObjectType::PetImage;
  const bool hu =
      static_cast<DicomValueMode>(values_->currentData().toInt()) == DicomValueMode::Hounsfield;
  values_->setEnabled(!pet);
  water_->setEnabled(!pet && hu);
  nativeUnits_->setEnabled(!pet && !hu);
  petUnits_->setEnabled(pet);
}

void DicomExportDialog::onPreviousStudyToggled(bool on) {
  const auto previous = previousStudy();
  if (on && previous) {
    // One study belongs to one patient: its patient and study fields come along, read-only.
    const io::dicom::DicomIdentity& p = previous->identity;
    patientName_->setText(QString::fromStdString(p.patientName));
    patientId_->setText(QString::fromStdString(p.patientId));
    birthDate_->setText(QString::fromStdString(p.patientBirthDate));
    sex_->setCurrentIndex(std::max(0, sex_->findData(QString::fromStdString(p.patientSex))));
    studyDescription_->setText(QString::fromStdString(p.studyDescription));
    studyId_->setText(QString::fromStdString(p.studyId));
    accession_->setText(QString::fromStdString(p.accessionNumber));
    seriesNumber_->setValue(std::min(seriesNumber_->maximum(), previous->lastSeriesNumber + 1));
  }
  for (QWidget* field : std::initializer_list<QWidget*>{patientName_, patientId_, birthDate_, sex_,
                                                        studyDescription_, studyId_, accession_})
    field->setEnabled(!on);
  scheduleSummary();
}

void DicomExportDialog::updateSuggestedFolder() {
  if (folderEdited_) return;
  QSettings settings;
  QString parent = settings.value(kLastParentKey).toString();
  if (parent.isEmpty() || !QFileInfo(parent).isDir())
    parent = settings.value(QStringLiteral("lastOpenDir"), QDir::homePath()).toString();
  const QString description = seriesDescription_->text().trimmed().isEmpty()
                                  ? defaultSeriesDescription()
                                  : seriesDescription_->text().trimmed();
  folder_->setText(QDir::toNativeSeparators(uniqueFolder(parent, safeFolderName(description))));
}

void DicomExportDialog::browse() {
  const QString current = outputFolder();
  const QString start = QFileInfo(current).isDir() ? current : QFileInfo(current).absolutePath();
  const QString chosen = QFileDialog::getExistingDirectory(
      this, tr("Folder for the DICOM series (an empty one, or where to make it)"), start);
  if (chosen.isEmpty()) return;
  // An empty folder takes the series; a folder with files gets a new sub-folder for it.
  QString target = chosen;
  if (isNonEmptyFolder(chosen)) {
    const QString description = seriesDescription_->text().trimmed().isEmpty()
                                    ? defaultSeriesDescription()
                                    : seriesDescription_->text().trimmed();
    target = uniqueFolder(chosen, safeFolderName(description));
  }
  setOutputFolder(QDir::toNativeSeparators(target));
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
        tr("16-bit integers × slope %1 + intercept %2%3<br>")
            .arg(number(p.rescaleSlope), number(p.rescaleIntercept))
            .arg(p.rescaleType.empty()
                     ? QString()
                     : tr(" (Rescale Type %1)").arg(QString::fromStdString(p.rescaleType))) +
        tr("Worst rounding: ±%1 %2").arg(number(p.maxQuantisationError), units);
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
  std::vector<float> values;
  values.reserve(static_cast<std::size_t>(p.columns * p.rows));
  for (std::int64_t y = p.y0; y < p.y0 + p.rows; ++y)
    for (std::int64_t x = p.x0; x < p.x0 + p.columns; ++x) values.push_back(v.at(x, y, p.z0));
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
                               .arg(p.z0)
                               .arg(shortNumber(v.worldPosition(0, 0, double(p.z0)).z()))
                               .arg(shortNumber(lo), shortNumber(hi)));
}

bool DicomExportDialog::startExport() {
  if (isExporting()) return false;
  refreshSummary();
  const auto notStarted = [this](const QString& message) {
    outcome_ = Outcome::NotStarted;
    lastMessage_ = message;
    return false;
  };
  if (!plan_) return notStarted(problem_);
  const QString typed = outputFolder();
  if (typed.isEmpty()) return notStarted(tr("Choose a folder for the series"));
  const QString folder = QDir::cleanPath(QFileInfo(typed).absoluteFilePath());
  const QFileInfo info(folder);
  bool replace = false;
  if (info.exists() && !info.isDir()) {
    const QString message =
        tr("%1 is a file, not a folder: choose another name").arg(QDir::toNativeSeparators(folder));
    if (showsErrorDialogs_) QMessageBox::warning(this, tr("Export DICOM series"), message);
    return notStarted(message);
  }
  if (isNonEmptyFolder(folder)) {
    if (!confirmReplace_ || !confirmReplace_(folder))
      return notStarted(
          tr("%1 was kept: nothing was written").arg(QDir::toNativeSeparators(folder)));
    replace = true;
  }

  DicomExportOptions o = options();
  // A fixed date and time, so that a later series of the same study carries the same.
  const QDateTime now = QDateTime::currentDateTime();
  if (o.identity.studyDate.empty())
    o.identity.studyDate = now.toString(QStringLiteral("yyyyMMdd")).toStdString();
  if (o.identity.studyTime.empty())
    o.identity.studyTime = now.toString(QStringLiteral("HHmmss")).toStdString();

  exportOptions_ = o;
  outcome_ = Outcome::None;
  lastMessage_.clear();
  result_.reset();
  exportFolder_ = folder;
  cancel_ = std::make_shared<CancelToken>();
  progressLabel_->setText(
      tr("Writing the DICOM series to %1…").arg(QDir::toNativeSeparators(folder)));
  progressBar_->setValue(0);
  progressCancel_->setEnabled(true);
  // Shown only for exports that take a while: a small series is done before it would appear.
  QTimer::singleShot(kProgressShowDelayMs, this, [this] {
    if (isExporting()) progress_->open();
  });
  exportButton_->setEnabled(false);

  // The worker only touches its own copies and the shared volume; it reaches the dialog through
  // queued calls, and the destructor joins it, so none of them outlives the dialog.
  worker_ = std::thread([this, volume = volume_, folder = folder.toStdString(), o, replace,
                         cancel = cancel_, observer = progressObserver_] {
    std::optional<io::dicom::DicomExportResult> result;
    bool cancelled = false;
    QString error;
    std::chrono::steady_clock::time_point lastPost{};
    FunctionProgressSink sink;
    sink.onReport = [&](double fraction) {
      if (observer) observer(fraction);
      const auto now = std::chrono::steady_clock::now();
      if (now - lastPost < kProgressInterval && fraction < 1.0) return;
      lastPost = now;
      QMetaObject::invokeMethod(
          this, [this, fraction] { onProgress(fraction); }, Qt::QueuedConnection);
    };
    try {
      JobContext context(*cancel, &sink);
      result = io::dicom::exportDicom(*volume, folder, o, context, replace);
    } catch (const Cancelled&) {
      cancelled = true;
    } catch (const std::bad_alloc&) {
      error = tr("not enough memory for the export");
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, result, cancelled, error] { onWorkerDone(result, cancelled, error); },
        Qt::QueuedConnection);
  });
  return true;
}

void DicomExportDialog::cancelExport() {
  if (cancel_) cancel_->request();
}

bool DicomExportDialog::waitForExport(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (isExporting() && timer.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return !isExporting();
}

void DicomExportDialog::onProgress(double fraction) {
  progressBar_->setValue(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000)));
}

void DicomExportDialog::onWorkerDone(std::optional<io::dicom::DicomExportResult> result,
                                     bool cancelled, const QString& error) {
  if (worker_.joinable()) worker_.join();
  progress_->hide();
  const QString folder = QDir::toNativeSeparators(exportFolder_);
  if (result) {
    outcome_ = Outcome::Succeeded;
    result_ = std::move(result);
    const DicomExportPlan& p = result_->plan;
    lastMessage_ = tr("DICOM series written to %1: %2, %3, worst rounding ±%4 %5")
                       .arg(folder, filesText(static_cast<std::int64_t>(result_->files.size())))
                       .arg(humanBytes(static_cast<double>(result_->bytesWritten)))
                       .arg(number(p.maxQuantisationError), QString::fromStdString(p.units));
    // Remember the study for "Add to the study of the previous export", and where it went.
    PreviousStudy previous;
    previous.identity = exportOptions_.identity;
    previous.identity.studyInstanceUid = result_->studyInstanceUid;
    previous.lastSeriesNumber = exportOptions_.identity.seriesNumber;
    previousStudyStorage() = previous;
    QSettings().setValue(kLastParentKey, QFileInfo(exportFolder_).absolutePath());
    emit exportSucceeded(lastMessage_);
    accept();
  } else if (cancelled) {
    outcome_ = Outcome::Cancelled;
    lastMessage_ = tr("DICOM export cancelled: nothing was written");
    if (QFileInfo::exists(exportFolder_)) lastMessage_ += tr(" (%1 is as it was)").arg(folder);
    summary_->setText(summary_->text() + QStringLiteral("<br><b>%1</b>").arg(lastMessage_));
    emit exportCancelled(lastMessage_);
  } else {
    outcome_ = Outcome::Failed;
    // The core's messages name the file; say which export the others are about.
    lastMessage_ = error.contains(QFileInfo(exportFolder_).fileName())
                       ? error
                       : tr("%1: %2").arg(folder, error);
    emit exportFailed(lastMessage_);
    if (showsErrorDialogs_) {
      auto* box =
          new QMessageBox(QMessageBox::Warning, tr("DICOM export failed"),
                          lastMessage_ + tr("\n\nNothing was left behind."), QMessageBox::Ok, this);
      box->setAttribute(Qt::WA_DeleteOnClose);
      box->open();
    }
  }
  updateExportButton();
}

void DicomExportDialog::updateExportButton() {
  exportButton_->setEnabled(plan_.has_value() && !outputFolder().isEmpty() && !isExporting());
  exportButton_->setToolTip(
      plan_ ? (outputFolder().isEmpty() ? tr("Choose a folder first") : tr("Write the series"))
            : problem_);
}

}  // namespace tomowb::gui
