// AlgorithmPanel's presets (AlgorithmPresets.h): the list, applying one through the chosen
// descriptor's validate (a bad preset is refused and its reason shown), saving and deleting the
// user's own.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>

#include "gui/AlgorithmPanel.h"
#include "recon/core/Error.h"

namespace tomowb::gui {

QStringList AlgorithmPanel::presetNames() const {
  QStringList names;
  for (const PresetStore::Entry& e : presetEntries_) names << e.name;
  return names;
}

void AlgorithmPanel::fillPresets() {
  const QSignalBlocker block(presets_);
  presetEntries_ = presetStore_.entries();
  presets_->clear();
  presets_->addItem(tr("(choose a preset)"), -1);
  for (std::size_t i = 0; i < presetEntries_.size(); ++i)
    presets_->addItem(presetEntries_[i].name, int(i));
  deletePreset_->setEnabled(false);
}

bool AlgorithmPanel::applyPreset(const QString& name) {
  for (const PresetStore::Entry& entry : presetEntries_) {
    if (entry.name != name) continue;
    QString source;
    const nlohmann::json preset = presetStore_.load(entry, &source);
    try {
      setAlgorithmParameters(
          applyAlgorithmPreset(preset, descriptor(), algorithmParameters(), source));
    } catch (const Error& e) {
      reason_->setText(QString::fromStdString(e.what()));
      reason_->setVisible(true);
      return false;
    }
    return true;
  }
  return false;
}

void AlgorithmPanel::saveUserPreset(const QString& name) {
  presetStore_.saveUser(name, algorithmPresetToJson(descriptor(), algorithmParameters(), name));
  fillPresets();
  presets_->setCurrentIndex(presets_->findText(name));
  deletePreset_->setEnabled(true);
}

bool AlgorithmPanel::deleteUserPreset(const QString& name) {
  for (const PresetStore::Entry& entry : presetEntries_)
    if (entry.user && entry.name == name) {
      presetStore_.removeUser(name);
      fillPresets();
      return true;
    }
  return false;
}

void AlgorithmPanel::onPresetChosen(int index) {
  const int entry = presets_->itemData(index).toInt();
  const bool known = entry >= 0 && entry < int(presetEntries_.size());
  deletePreset_->setEnabled(known && presetEntries_[std::size_t(entry)].user);
  if (known) applyPreset(presetEntries_[std::size_t(entry)].name);
}

}  // namespace tomowb::gui
