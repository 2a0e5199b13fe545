// DicomExportDialog: see the header.
// This file holds the dialog's life and its options (to and from the form, the folder); the form is
// built in DicomExportDialogForm.cpp, the summary and preview made in DicomExportDialogSummary.cpp
// and the export run in DicomExportDialogExport.cpp.
#include "gui/DicomExportDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTimer>
#include <algorithm>
#include <initializer_list>

#include "gui/DicomExportDialogInternal.h"
#include "recon/io/dicom/DicomUid.h"

namespace tomowb::gui {

std::optional<DicomExportDialog::PreviousStudy>& detail::previousStudyStorage() {
  // This application session only (GUI thread): a new session starts a new study.
  static std::optional<DicomExportDialog::PreviousStudy> previous;
  return previous;
}

bool detail::isNonEmptyFolder(const QString& path) {
  const QFileInfo info(path);
  return info.isDir() &&
         !QDir(path).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
}

namespace {

using detail::isNonEmptyFolder;
using detail::kLastParentKey;
using detail::previousStudyStorage;
using io::dicom::DicomCompression;
using io::dicom::DicomExportOptions;
using io::dicom::DicomObjectType;
using io::dicom::DicomValueMode;
using io::dicom::PatientPosition;

constexpr int kPlanDelayMs = 300;

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

void DicomExportDialog::setDataUnits(const DisplayUnits& units) {
  io::dicom::DicomExportOptions o = options();
  if (o.type == io::dicom::DicomObjectType::PetImage) return;  // PET has units of its own
  if (units.huAvailable()) {
    o.values = io::dicom::DicomValueMode::Hounsfield;
    o.waterAttenuationPerMm = *units.waterPerMm();
  } else {
    o.values = io::dicom::DicomValueMode::Native;
  }
  setOptions(o);
}

DicomExportDialog::~DicomExportDialog() {
  if (worker_.joinable()) {
    cancel_->request();
    worker_.join();  // stops within one slice; the core removes its temporary folder
  }
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
  o.pet = petAcquisition();
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
  const int pet = petUnits_->findText(QString::fromStdString(io::dicom::petUnitsOf(o)));
  if (pet >= 0) petUnits_->setCurrentIndex(pet);
  setPetAcquisition(o.pet);
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
  updatePetPlaceholders();
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
  // CT's value fields (HU, water, native units) mean nothing for PET, and PET's for CT: hidden.
  for (QWidget* ctField :
       std::initializer_list<QWidget*>{values_, water_, waterHint_, nativeUnits_})
    valuesForm_->setRowVisible(ctField, !pet);
  valuesForm_->setRowVisible(petUnits_, pet);
  petBox_->setVisible(pet);
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

}  // namespace tomowb::gui
