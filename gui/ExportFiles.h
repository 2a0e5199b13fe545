// ExportFiles: the workbench's file exports (plots as PNG and CSV, screenshots) go through these
// two functions, which write to a temporary name and rename on success (QSaveFile), so a failed
// or cancelled export leaves no partial file. `error` gets "PATH: reason".
#pragma once

#include <QPixmap>
#include <QString>

namespace tomowb::gui {

bool saveTextAtomically(const QString& path, const QString& text, QString* error = nullptr);
bool savePngAtomically(const QString& path, const QPixmap& pixmap, QString* error = nullptr);

}  // namespace tomowb::gui
