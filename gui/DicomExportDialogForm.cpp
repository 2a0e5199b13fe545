// DicomExportDialogForm.cpp: the widgets of DicomExportDialog (files, values, slices and crop,
// identity, preview and summary, folder and buttons, their connections) and its progress dialog.
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/DicomExportDialog.h"
#include "gui/DicomExportDialogInternal.h"

namespace tomowb::gui {

namespace {

using detail::kPreviewEdge;
using detail::number;
using detail::typeDescription;
using io::dicom::DicomCompression;
using io::dicom::DicomExportOptions;
using io::dicom::DicomObjectType;
using io::dicom::DicomValueMode;
using io::dicom::PatientPosition;

// PS3.3 C.8.9.1.1.3 Units (0054,1001): the usual ones first. BQML (activity concentration, what
// a calibrated reconstruction is) is the default; PROPCNTS (proportional to counts) is what an
// uncalibrated one is.
const char* const kPetUnits[] = {"BQML", "PROPCNTS", "CNTS", "CPS",     "PROPCPS", "GML",
                                 "1CM",  "PCNT",     "NONE", "MGMINML", "UMOLML"};

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

}  // namespace

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
  valuesForm_ = valuesForm;
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
  waterHint_ = waterHint;
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
      tr("PET Units (0054,1001): BQML for activity concentration (Bq/mL), PROPCNTS "
         "(proportional to counts) for an uncalibrated reconstruction"));
  valuesForm->addRow(tr("PET un&its"), petUnits_);
  left->addWidget(valuesBox);
  petBox_ = buildPetBox();
  left->addWidget(petBox_);

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
  auto* previewBox = new QGroupBox(tr("Middle exported slice"), this);
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
  layout->addLayout(buildPacsRow());  // "Send to PACS" (DicomExportDialogPacs.cpp)
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

}  // namespace tomowb::gui
