// Session: what File > Save session… writes and Open session… reads back, a versioned JSON file
// (`*.tomowb-session`, docs/file-formats.md): references to the data (the file opened, or the
// demo's kind and size), the geometry the runs used (geometryToJson), the runs (algorithm,
// parameters, record and the path of each saved result volume), the volumes shown, the ROIs
// (CnrPanel::roisJson) and the window layout (QMainWindow::saveGeometry/saveState, base64).
// Paths are stored both absolute and relative to the session's folder, so a session moved with
// its results still finds them. Writes are atomic (QSaveFile: a temporary name, then a rename).
// Reading checks every field and throws FormatError naming the file and the field; a missing
// data file is not an error here (the window reports it and opens the rest).
#pragma once

#include <QByteArray>
#include <QString>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace tomowb::gui {

inline constexpr int kSessionFormatVersion = 1;
inline constexpr char kSessionFormatName[] = "tomowb-session";
inline constexpr char kSessionSuffix[] = ".tomowb-session";

struct SessionData {
  // The projections the window works on (one entry: the current one).
  struct Projections {
    QString name;
    QString path;      // the file opened; empty for the demo or derived data
    QString demoKind;  // demoKindName() when the demo was loaded ("shepp-logan", "et"...)
    int demoSize = 0;
    nlohmann::json geometry;           // geometryToJson of the geometry the runs use; null if none
    std::optional<double> waterPerMm;  // View > Water value for HU, when the user gave one
  };
  struct Run {
    int id = 0;  // the id in the saved window (the volumes' runId refer to it)
    QString title, algorithm, state;
    nlohmann::json parameters = nlohmann::json::object();
    nlohmann::json record = nlohmann::json::object();  // RunInfo::record
    double seconds = 0;
    QString recordPath;  // the qa::RunRecord file, if one was written
    QString resultPath;  // the saved result volume; empty if it was not saved
  };
  struct VolumeEntry {
    QString name;
    QString path;  // the file it was loaded from or saved to; empty: not saved
    int runId = -1;
    bool current = false;
  };

  std::optional<Projections> projections;
  QString petPath;  // TOF-PET list mode opened from a file
  std::vector<Run> runs;
  std::vector<VolumeEntry> volumes;
  nlohmann::json rois = nlohmann::json::array();
  QByteArray windowGeometry, windowState;  // raw bytes (base64 in the file)
};

// The file's JSON; paths relative to `sessionPath`'s folder are added beside the absolute ones.
nlohmann::json sessionToJson(const SessionData& session, const QString& sessionPath);
// Throws FormatError(sessionPath, field, problem) for a wrong format, version or field type.
// Each path comes back as the one relative to the session's folder when that file exists, else
// the absolute one.
SessionData sessionFromJson(const nlohmann::json& json, const QString& sessionPath);

// Atomic write (QSaveFile); throws IoError naming the path on failure.
void writeSessionFile(const QString& path, const SessionData& session);
// Throws IoError (cannot read) or FormatError (not JSON, wrong fields), naming the path.
SessionData readSessionFile(const QString& path);

}  // namespace tomowb::gui
