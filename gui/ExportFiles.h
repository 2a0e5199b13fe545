// ExportFiles: the workbench's file exports (plots as PNG and CSV, screenshots) go through these
// two functions, which write to a temporary name and rename on success (QSaveFile), so a failed
// or cancelled export leaves no partial file. `error` gets "PATH: reason".
#pragma once

#include <QPixmap>
#include <QString>
#include <functional>

class QWidget;

namespace tomowb::gui {

bool saveTextAtomically(const QString& path, const QString& text, QString* error = nullptr);
bool savePngAtomically(const QString& path, const QPixmap& pixmap, QString* error = nullptr);

// The panels' "Export PNG/CSV..." buttons: asks for a file name (suggestedName, filter), writes
// it with `save`, and shows a failure in a message box titled `failureTitle`. Cancel writes
// nothing.
void exportWithDialog(QWidget* parent, const QString& caption, const QString& suggestedName,
                      const QString& filter, const QString& failureTitle,
                      const std::function<bool(const QString& path, QString* error)>& save);

}  // namespace tomowb::gui
