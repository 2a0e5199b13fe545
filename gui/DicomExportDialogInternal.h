// DicomExportDialogInternal.h: what the DicomExportDialog*.cpp files share and nothing else
// includes: the preview size, the settings key, the session's previous study and number formats.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>

#include "gui/DicomExportDialog.h"

namespace tomowb::gui::detail {

constexpr int kPreviewEdge = 256;  // pixels of the preview's longer side
const char* const kLastParentKey = "dicomExport/lastParentFolder";

// The study of this session's last export (DicomExportDialog.cpp).
std::optional<DicomExportDialog::PreviousStudy>& previousStudyStorage();
// A folder holding anything, hidden files included (DicomExportDialog.cpp).
bool isNonEmptyFolder(const QString& path);

// Summary formats (DicomExportDialogSummary.cpp): "1.5 MiB", "1 file" / "6 files", 6 significant
// digits, the object type in words.
QString humanBytes(double bytes);
QString filesText(std::int64_t files);
QString number(double value);
QString typeDescription(io::dicom::DicomObjectType type);

}  // namespace tomowb::gui::detail
