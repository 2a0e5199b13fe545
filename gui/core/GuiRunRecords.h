// GuiRunRecords: the run records (qa::RunRecord, docs/qa.md; issue #9, point 6) of runs made in
// the window, and opening records in the run list. A finished run's record keeps what the window
// knows: algorithm, parameters, kernel variant(s) and tunables, device, software version, the
// run's report as timings, the projections' file (size and SHA-256) when they came from one, and
// the geometry with its SHA-256. A GUI run has no command line, so `command` stays empty, and no
// output until the user saves the volume: then NAME.run.json beside it records the output too.
// The window keeps its records in <AppLocalDataLocation>/runs/<created>-run<N>.run.json. Opening
// a *.run.json reads the record and, when the recorded output still exists, its volume (with a
// warning when its SHA-256 changed). Needs only QtCore.
#pragma once

#include <QString>
#include <QStringList>
#include <filesystem>
#include <memory>

#include "gui/core/RunController.h"
#include "recon/core/Volume.h"
#include "recon/geometry/Geometry.h"
#include "recon/qa/RunRecord.h"

namespace tomowb::gui {

// <AppLocalDataLocation>/runs: where the window writes the records of its runs.
QString defaultRunRecordsFolder();

// The record of a finished run. `projectionsPath` is the file the projections were read from
// (empty for a demo or derived data: no input file is recorded), `geometry` the geometry the run
// used (null: none recorded). Reading the input file for its SHA-256 may throw IoError.
qa::RunRecord makeGuiRunRecord(const RunInfo& run, const QString& projectionsPath,
                               const Geometry* geometry);

// "<folder>/<created>-run<N>.run.json", the created time with '-' for ':' (file-name safe).
std::filesystem::path guiRunRecordPath(const QString& folder, const qa::RunRecord& record,
                                       int runId);

// Writes the record atomically to guiRunRecordPath (creating the folder); returns the path.
// Throws IoError.
std::filesystem::path writeGuiRunRecord(const QString& folder, const qa::RunRecord& record,
                                        int runId);

// The record of a volume saved to `output`: `record` with the output file (and the data file a
// MetaImage or raw + JSON header names) as outputs, written atomically to
// qa::runRecordPathFor(output). Returns that path.
std::filesystem::path writeSavedVolumeRecord(qa::RunRecord record,
                                             const std::filesystem::path& output);

// True for "*.run.json" (and "run.json", the demo command's record).
bool isRunRecordPath(const QString& path);

struct OpenedRunRecord {
  qa::RunRecord record;
  nlohmann::json json;             // the record as written (for "Show record…")
  std::shared_ptr<Volume> volume;  // the recorded output volume, when it still exists
  QString volumePath;
  QStringList warnings;  // no output recorded, output gone, output changed since the record
};

// Reads a record (FormatError naming the file and field for anything else) and its first
// "output" file as a volume when it exists; relative outputs are taken from the record's
// working directory, else from the record's folder.
OpenedRunRecord openRunRecord(const std::filesystem::path& path);

// The run-list entry for an opened record: "record: FDK fdk.bp.cpu (recon.run.json)".
RunSpec runSpecForRecord(const OpenedRunRecord& opened, const QString& path);
// The run-list record JSON of that entry: the record itself, with where it came from.
nlohmann::json runListRecordFor(const OpenedRunRecord& opened, const QString& path);
// The run's wall time in the record (timings.totalSeconds, else seconds, else 0).
double recordedSeconds(const qa::RunRecord& record);

}  // namespace tomowb::gui
