// ExportFiles: see the header.
#include "gui/ExportFiles.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QSaveFile>

namespace tomowb::gui {

bool saveTextAtomically(const QString& path, const QString& text, QString* error) {
  QSaveFile file(path);
  const QByteArray bytes = text.toUtf8();
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  return true;
}

bool savePngAtomically(const QString& path, const QPixmap& pixmap, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || !pixmap.save(&file, "PNG") || !file.commit()) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  return true;
}

void exportWithDialog(QWidget* parent, const QString& caption, const QString& suggestedName,
                      const QString& filter, const QString& failureTitle,
                      const std::function<bool(const QString& path, QString* error)>& save) {
  const QString path = QFileDialog::getSaveFileName(parent, caption, suggestedName, filter);
  QString error;
  if (!path.isEmpty() && !save(path, &error)) QMessageBox::warning(parent, failureTitle, error);
}

}  // namespace tomowb::gui
