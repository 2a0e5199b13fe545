// ExportFiles: see the header.
#include "gui/ExportFiles.h"

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

}  // namespace tomowb::gui
