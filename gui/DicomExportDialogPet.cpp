// DicomExportDialogPet.cpp: the PET acquisition's fields of DicomExportDialog (shown for PET Image
// only): radionuclide, radiopharmaceutical, injected dose, injection and scan start times, decay
// correction, frame duration, patient weight, corrections and reconstruction method, and their
// values to and from io::dicom::DicomPetAcquisition. An unknown value (0, an unticked time) is
// left out of the files; the core checks the rest and the summary shows its errors by field.
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <cmath>

#include "gui/DicomExportDialog.h"
#include "gui/DicomExportDialogInternal.h"

namespace tomowb::gui {

namespace {

using io::dicom::DicomPetAcquisition;
using io::dicom::PetDecayCorrection;

const char* const kDateTimeDisplay = "yyyy-MM-dd HH:mm:ss";
const char* const kDicomDateTime = "yyyyMMddHHmmss";

// A spin box whose 0 reads "unknown" (the value is then left out of the files).
QDoubleSpinBox* unknownAtZero(double maximum, int decimals, const QString& suffix,
                              const char* objectName, QWidget* parent) {
  auto* spin = new QDoubleSpinBox(parent);
  spin->setObjectName(QString::fromLatin1(objectName));
  spin->setRange(0.0, maximum);
  spin->setDecimals(decimals);
  spin->setSuffix(suffix);
  spin->setSpecialValueText(DicomExportDialog::tr("unknown"));
  return spin;
}

// A date-time field behind a "known" tick: unticked, the time is unknown and not written.
QWidget* knownDateTime(QCheckBox*& known, QDateTimeEdit*& edit, const char* objectName,
                       QWidget* parent) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  known = new QCheckBox(row);
  known->setObjectName(QString::fromLatin1(objectName) + QStringLiteral("Known"));
  known->setAccessibleName(DicomExportDialog::tr("known"));
  edit = new QDateTimeEdit(row);
  edit->setObjectName(QString::fromLatin1(objectName));
  edit->setDisplayFormat(QString::fromLatin1(kDateTimeDisplay));
  edit->setCalendarPopup(true);
  QDateTime now = QDateTime::currentDateTime();
  now.setTime(QTime(now.time().hour(), now.time().minute()));
  edit->setDateTime(now);
  edit->setEnabled(false);
  QObject::connect(known, &QCheckBox::toggled, edit, &QWidget::setEnabled);
  layout->addWidget(known);
  layout->addWidget(edit, 1);
  return row;
}

QString dateTimeText(const QCheckBox* known, const QDateTimeEdit* edit) {
  return known->isChecked() ? edit->dateTime().toString(QString::fromLatin1(kDicomDateTime))
                            : QString();
}

// A DICOM date-time (fractions of a second dropped) into a ticked field; empty unticks it.
void setDateTime(QCheckBox* known, QDateTimeEdit* edit, const std::string& dicom) {
  const QDateTime value = QDateTime::fromString(QString::fromStdString(dicom).left(14),
                                                QString::fromLatin1(kDicomDateTime));
  known->setChecked(value.isValid());
  if (value.isValid()) edit->setDateTime(value);
}

}  // namespace

QGroupBox* DicomExportDialog::buildPetBox() {
  auto* box = new QGroupBox(tr("PET acquisition"), this);
  box->setObjectName(QStringLiteral("dicomPetBox"));
  // Mnemonics only on letters the dialog's other fields leave free (j, c, g).
  auto* form = new QFormLayout(box);
  radionuclide_ = new QComboBox(box);
  radionuclide_->setObjectName(QStringLiteral("dicomPetRadionuclide"));
  for (const io::dicom::PetRadionuclide& r : io::dicom::knownPetRadionuclides())
    radionuclide_->addItem(tr("%1 (half-life %2 min)")
                               .arg(QString::fromStdString(r.name))
                               .arg(r.halfLifeS / 60.0, 0, 'f', 2),
                           QString::fromStdString(r.name));
  radionuclide_->setToolTip(
      tr("Written as its code (CID 4020) with its half-life and positron "
         "fraction, which SUV and decay correction use"));
  form->addRow(tr("Radionuclide"), radionuclide_);
  radiopharmaceutical_ =
      new QLineEdit(QString::fromStdString(DicomPetAcquisition{}.radiopharmaceutical), box);
  radiopharmaceutical_->setObjectName(QStringLiteral("dicomPetRadiopharmaceutical"));
  radiopharmaceutical_->setMaxLength(64);
  form->addRow(tr("Radiopharmaceutical"), radiopharmaceutical_);
  doseMBq_ = unknownAtZero(1e5, 2, tr(" MBq"), "dicomPetDose", box);
  doseMBq_->setToolTip(tr("Radionuclide Total Dose: the activity injected"));
  form->addRow(tr("Injected dose"), doseMBq_);
  QWidget* injectionRow = knownDateTime(injectionKnown_, injection_, "dicomPetInjection", box);
  form->addRow(tr("In&jection"), injectionRow);
  if (auto* label = qobject_cast<QLabel*>(form->labelForField(injectionRow)))
    label->setBuddy(injectionKnown_);  // the row's container takes no focus: its tick does
  form->addRow(tr("Scan start"),
               knownDateTime(scanStartKnown_, scanStart_, "dicomPetScanStart", box));
  scanStart_->setToolTip(
      tr("Series and Acquisition Date/Time: the reference of START decay correction and of "
         "the uptake time SUV uses; unticked, the export's time"));
  decayCorrection_ = new QComboBox(box);
  decayCorrection_->setObjectName(QStringLiteral("dicomPetDecayCorrection"));
  decayCorrection_->addItem(tr("None (NONE)"), static_cast<int>(PetDecayCorrection::None));
  decayCorrection_->addItem(tr("To the scan start (START)"),
                            static_cast<int>(PetDecayCorrection::Start));
  decayCorrection_->addItem(tr("To the injection (ADMIN)"),
                            static_cast<int>(PetDecayCorrection::Admin));
  decayCorrection_->setToolTip(
      tr("What the values are decay corrected to; the Decay Factor is computed from the "
         "half-life, the frame and the times"));
  form->addRow(tr("Decay &correction"), decayCorrection_);
  frameDurationS_ = unknownAtZero(86400.0, 1, tr(" s"), "dicomPetFrameDuration", box);
  frameDurationS_->setToolTip(
      tr("Actual Frame Duration: the acquisition's length (BQML needs it)"));
  form->addRow(tr("Frame duration"), frameDurationS_);
  weightKg_ = unknownAtZero(500.0, 1, tr(" kg"), "dicomPetWeight", box);
  weightKg_->setToolTip(tr("Patient's Weight, for SUV"));
  form->addRow(tr("Patient wei&ght"), weightKg_);
  correctedImage_ = new QLineEdit(box);
  correctedImage_->setObjectName(QStringLiteral("dicomPetCorrected"));
  correctedImage_->setPlaceholderText(tr("e.g. NORM, ATTN, SCAT, RAN"));
  correctedImage_->setToolTip(
      tr("Corrected Image: the corrections applied (NORM, ATTN, SCAT, RAN, DTIM, DCAL...); "
         "DECY follows the decay correction"));
  form->addRow(tr("Corrected"), correctedImage_);
  reconstructionMethod_ = new QLineEdit(box);
  reconstructionMethod_->setObjectName(QStringLiteral("dicomPetReconstructionMethod"));
  reconstructionMethod_->setMaxLength(64);
  updatePetPlaceholders();
  form->addRow(tr("Reconstruction"), reconstructionMethod_);

  for (QComboBox* combo : {radionuclide_, decayCorrection_})
    connect(combo, &QComboBox::currentIndexChanged, this, &DicomExportDialog::scheduleSummary);
  for (QDoubleSpinBox* spin : {doseMBq_, frameDurationS_, weightKg_})
    connect(spin, &QDoubleSpinBox::valueChanged, this, &DicomExportDialog::scheduleSummary);
  for (QCheckBox* known : {injectionKnown_, scanStartKnown_})
    connect(known, &QCheckBox::toggled, this, &DicomExportDialog::scheduleSummary);
  for (QDateTimeEdit* edit : {injection_, scanStart_})
    connect(edit, &QDateTimeEdit::dateTimeChanged, this, &DicomExportDialog::scheduleSummary);
  for (QLineEdit* edit : {radiopharmaceutical_, correctedImage_, reconstructionMethod_})
    connect(edit, &QLineEdit::textChanged, this, &DicomExportDialog::scheduleSummary);
  return box;
}

DicomPetAcquisition DicomExportDialog::petAcquisition() const {
  DicomPetAcquisition pet = petUnshown_;  // what the form has no field for
  pet.activityConcentration = petUnits_->currentText() == QStringLiteral("BQML");
  pet.radionuclide = radionuclide_->currentData().toString().toStdString();
  pet.radiopharmaceutical = radiopharmaceutical_->text().trimmed().toStdString();
  pet.totalDoseBq = doseMBq_->value() * 1e6;
  pet.injectionDateTime = dateTimeText(injectionKnown_, injection_).toStdString();
  pet.acquisitionDateTime = dateTimeText(scanStartKnown_, scanStart_).toStdString();
  pet.decayCorrection = static_cast<PetDecayCorrection>(decayCorrection_->currentData().toInt());
  pet.actualFrameDurationMs = std::llround(frameDurationS_->value() * 1000.0);
  pet.patientWeightKg = weightKg_->value();
  pet.correctedImage.clear();
  for (const QString& term : correctedImage_->text().split(
           QRegularExpression(QStringLiteral("[\\s,;\\\\]+")), Qt::SkipEmptyParts))
    pet.correctedImage.push_back(term.toUpper().toStdString());
  pet.reconstructionMethod = reconstructionMethod_->text().trimmed().toStdString();
  return pet;
}

void DicomExportDialog::updatePetPlaceholders() {
  // The core's default Reconstruction Method: algorithm, variant and iterations.
  QString method = QString::fromStdString(provenance_.algorithm + " " + provenance_.variant);
  if (provenance_.iterations > 0) method += tr(" %1 it").arg(provenance_.iterations);
  method = method.trimmed();
  reconstructionMethod_->setPlaceholderText(method.isEmpty() ? tr("(not written)") : method);
}

void DicomExportDialog::setPetAcquisition(const DicomPetAcquisition& pet) {
  petUnshown_ = pet;
  const int nuclide = radionuclide_->findData(QString::fromStdString(pet.radionuclide));
  if (nuclide >= 0) radionuclide_->setCurrentIndex(nuclide);
  radiopharmaceutical_->setText(QString::fromStdString(pet.radiopharmaceutical));
  doseMBq_->setValue(pet.totalDoseBq / 1e6);
  setDateTime(injectionKnown_, injection_, pet.injectionDateTime);
  setDateTime(scanStartKnown_, scanStart_, pet.acquisitionDateTime);
  decayCorrection_->setCurrentIndex(
      decayCorrection_->findData(static_cast<int>(pet.decayCorrection)));
  frameDurationS_->setValue(static_cast<double>(pet.actualFrameDurationMs) / 1000.0);
  weightKg_->setValue(pet.patientWeightKg);
  QStringList terms;
  for (const std::string& term : pet.correctedImage) terms << QString::fromStdString(term);
  correctedImage_->setText(terms.join(QStringLiteral(", ")));
  reconstructionMethod_->setText(QString::fromStdString(pet.reconstructionMethod));
}

}  // namespace tomowb::gui
