// Session: see the header.
#include "gui/core/Session.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <cmath>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::gui {
namespace {

using nlohmann::json;

std::string str(const QString& s) {
  return s.toStdString();
}
QString qstr(const std::string& s) {
  return QString::fromStdString(s);
}

// {"path": absolute, "relative": to the session's folder} or null for an empty path.
json pathJson(const QString& path, const QDir& folder) {
  if (path.isEmpty()) return nullptr;
  const QString absolute = QFileInfo(path).absoluteFilePath();
  return {{"path", str(absolute)}, {"relative", str(folder.relativeFilePath(absolute))}};
}

class Reader {
 public:
  explicit Reader(const QString& path)
      : path_(path.toStdString()), folder_(QFileInfo(path).absoluteDir()) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw FormatError(path_, field, problem);
  }

  const json& object(const json& parent, const char* key, const std::string& field) const {
    if (!parent.contains(key)) fail(field, "missing");
    const json& j = parent.at(key);
    if (!j.is_object()) fail(field, "must be an object, got " + std::string(j.type_name()));
    return j;
  }
  std::string text(const json& parent, const char* key, const std::string& field,
                   const std::string& fallback = {}) const {
    if (!parent.contains(key) || parent.at(key).is_null()) return fallback;
    const json& j = parent.at(key);
    if (!j.is_string()) fail(field, "must be a string, got " + std::string(j.type_name()));
    return j.get<std::string>();
  }
  double number(const json& parent, const char* key, const std::string& field,
                double fallback = 0) const {
    if (!parent.contains(key) || parent.at(key).is_null()) return fallback;
    const json& j = parent.at(key);
    if (!j.is_number()) fail(field, "must be a number, got " + std::string(j.type_name()));
    return j.get<double>();
  }
  int integer(const json& parent, const char* key, const std::string& field, int fallback) const {
    if (!parent.contains(key) || parent.at(key).is_null()) return fallback;
    const json& j = parent.at(key);
    if (!j.is_number_integer())
      fail(field, "must be an integer, got " + std::string(j.type_name()));
    return j.get<int>();
  }
  // A path block (pathJson): the relative path when that file exists (the session moved with its
  // files), else the absolute one.
  QString path(const json& parent, const char* key, const std::string& field) const {
    if (!parent.contains(key) || parent.at(key).is_null()) return {};
    const json& j = parent.at(key);
    if (!j.is_object())
      fail(field, "must be an object with \"path\", got " + std::string(j.type_name()));
    QString absolute = qstr(text(j, "path", field + ".path"));
    const QString relative = qstr(text(j, "relative", field + ".relative"));
    if (absolute.isEmpty() && relative.isEmpty()) fail(field, "has neither path nor relative");
    if (!relative.isEmpty()) {
      QString moved = QDir::cleanPath(folder_.absoluteFilePath(relative));
      if (QFileInfo::exists(moved) || absolute.isEmpty()) return moved;
    }
    return absolute;
  }
  QByteArray base64(const json& parent, const char* key, const std::string& field) const {
    return QByteArray::fromBase64(QByteArray::fromStdString(text(parent, key, field)));
  }

 private:
  std::string path_;
  QDir folder_;
};

}  // namespace

json sessionToJson(const SessionData& s, const QString& sessionPath) {
  const QDir folder = QFileInfo(sessionPath).absoluteDir();
  json j = {{"format", kSessionFormatName}, {"version", kSessionFormatVersion}};
  if (s.projections) {
    const SessionData::Projections& p = *s.projections;
    json pj = {{"name", str(p.name)}, {"file", pathJson(p.path, folder)}};
    if (!p.demoKind.isEmpty()) pj["demo"] = {{"kind", str(p.demoKind)}, {"size", p.demoSize}};
    pj["geometry"] = p.geometry;
    if (p.waterPerMm.has_value()) pj["waterPerMm"] = *p.waterPerMm;
    j["projections"] = std::move(pj);
  } else {
    j["projections"] = nullptr;
  }
  j["pet"] = pathJson(s.petPath, folder);
  json runs = json::array();
  for (const SessionData::Run& r : s.runs)
    runs.push_back({{"id", r.id},
                    {"title", str(r.title)},
                    {"algorithm", str(r.algorithm)},
                    {"state", str(r.state)},
                    {"parameters", r.parameters},
                    {"record", r.record},
                    {"seconds", r.seconds},
                    {"recordFile", pathJson(r.recordPath, folder)},
                    {"result", pathJson(r.resultPath, folder)}});
  j["runs"] = std::move(runs);
  json volumes = json::array();
  for (const SessionData::VolumeEntry& v : s.volumes)
    volumes.push_back({{"name", str(v.name)},
                       {"file", pathJson(v.path, folder)},
                       {"run", v.runId},
                       {"current", v.current}});
  j["volumes"] = std::move(volumes);
  j["rois"] = s.rois.is_array() ? s.rois : json::array();
  j["window"] = {{"geometry", s.windowGeometry.toBase64().toStdString()},
                 {"state", s.windowState.toBase64().toStdString()}};
  return j;
}

namespace {

SessionData::Projections readProjections(const Reader& in, const json& pj) {
  SessionData::Projections p;
  p.name = qstr(in.text(pj, "name", "projections.name"));
  p.path = in.path(pj, "file", "projections.file");
  if (pj.contains("demo") && !pj.at("demo").is_null()) {
    const json& demo = in.object(pj, "demo", "projections.demo");
    p.demoKind = qstr(in.text(demo, "kind", "projections.demo.kind"));
    p.demoSize = in.integer(demo, "size", "projections.demo.size", 0);
    if (p.demoKind.isEmpty()) in.fail("projections.demo.kind", "missing");
    if (p.demoSize < 1)
      in.fail("projections.demo.size", "must be >= 1, got " + std::to_string(p.demoSize));
  }
  if (pj.contains("geometry")) p.geometry = pj.at("geometry");
  if (!p.geometry.is_null() && !p.geometry.is_object())
    in.fail("projections.geometry", "must be an object or null");
  if (pj.contains("waterPerMm")) {
    const double water = in.number(pj, "waterPerMm", "projections.waterPerMm");
    if (!(water > 0.0) || !std::isfinite(water))
      in.fail("projections.waterPerMm", "must be a positive attenuation in 1/mm");
    p.waterPerMm = water;
  }
  return p;
}

SessionData::Run readRun(const Reader& in, const json& rj, const std::string& f) {
  if (!rj.is_object()) in.fail(f, "must be an object");
  SessionData::Run r;
  r.id = in.integer(rj, "id", f + ".id", -1);
  if (r.id < 0) in.fail(f + ".id", "missing or negative");
  r.title = qstr(in.text(rj, "title", f + ".title"));
  r.algorithm = qstr(in.text(rj, "algorithm", f + ".algorithm"));
  if (r.algorithm.isEmpty()) in.fail(f + ".algorithm", "missing");
  r.state = qstr(in.text(rj, "state", f + ".state", "finished"));
  if (rj.contains("parameters")) r.parameters = rj.at("parameters");
  if (rj.contains("record")) r.record = rj.at("record");
  if (!r.parameters.is_object()) in.fail(f + ".parameters", "must be an object");
  if (!r.record.is_object()) in.fail(f + ".record", "must be an object");
  r.seconds = in.number(rj, "seconds", f + ".seconds");
  r.recordPath = in.path(rj, "recordFile", f + ".recordFile");
  r.resultPath = in.path(rj, "result", f + ".result");
  return r;
}

SessionData::VolumeEntry readVolumeEntry(const Reader& in, const json& vj, const std::string& f) {
  if (!vj.is_object()) in.fail(f, "must be an object");
  SessionData::VolumeEntry v;
  v.name = qstr(in.text(vj, "name", f + ".name"));
  v.path = in.path(vj, "file", f + ".file");
  v.runId = in.integer(vj, "run", f + ".run", -1);
  if (vj.contains("current") && !vj.at("current").is_boolean())
    in.fail(f + ".current", "must be true or false");
  v.current = vj.value("current", false);
  return v;
}

// The array `key` (absent: empty), each element read by `read(in, element, "key[i]")`.
template <typename Read>
void readArray(const Reader& in, const json& j, const char* key, Read read) {
  if (!j.contains(key)) return;
  const json& array = j.at(key);
  if (!array.is_array()) in.fail(key, "must be an array");
  for (std::size_t i = 0; i < array.size(); ++i)
    read(array[i], std::string(key) + "[" + std::to_string(i) + "]");
}

}  // namespace

SessionData sessionFromJson(const json& j, const QString& sessionPath) {
  const Reader in(sessionPath);
  if (!j.is_object())
    in.fail("", "not a session: the file holds a JSON " + std::string(j.type_name()) +
                    ", not an object");
  if (in.text(j, "format", "format") != kSessionFormatName)
    in.fail("format", "must be \"" + std::string(kSessionFormatName) + "\"");
  const int version = in.integer(j, "version", "version", -1);
  if (version < 1 || version > kSessionFormatVersion)
    in.fail("version", "this workbench reads version 1 to " +
                           std::to_string(kSessionFormatVersion) + ", got " +
                           std::to_string(version));
  SessionData s;
  if (j.contains("projections") && !j.at("projections").is_null())
    s.projections = readProjections(in, in.object(j, "projections", "projections"));
  s.petPath = in.path(j, "pet", "pet");
  readArray(in, j, "runs",
            [&](const json& e, const std::string& f) { s.runs.push_back(readRun(in, e, f)); });
  readArray(in, j, "volumes", [&](const json& e, const std::string& f) {
    s.volumes.push_back(readVolumeEntry(in, e, f));
  });
  if (j.contains("rois")) {
    s.rois = j.at("rois");
    if (!s.rois.is_array()) in.fail("rois", "must be an array");
  }
  if (j.contains("window") && !j.at("window").is_null()) {
    const json& w = in.object(j, "window", "window");
    s.windowGeometry = in.base64(w, "geometry", "window.geometry");
    s.windowState = in.base64(w, "state", "window.state");
  }
  return s;
}

void writeSessionFile(const QString& path, const SessionData& session) {
  const std::string text = sessionToJson(session, path).dump(2) + "\n";
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw IoError(path.toStdString(), "cannot write: " + file.errorString().toStdString());
  if (file.write(text.data(), static_cast<qint64>(text.size())) !=
      static_cast<qint64>(text.size())) {
    file.cancelWriting();
    throw IoError(path.toStdString(), "short write: " + file.errorString().toStdString());
  }
  if (!file.commit())
    throw IoError(path.toStdString(), "cannot save: " + file.errorString().toStdString());
}

SessionData readSessionFile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    throw IoError(path.toStdString(), "cannot open: " + file.errorString().toStdString());
  const QByteArray bytes = file.readAll();
  json j;
  try {
    j = json::parse(bytes.constData(), bytes.constData() + bytes.size());
  } catch (const json::parse_error& e) {
    throw FormatError(path.toStdString(), std::string("not valid JSON: ") + e.what());
  }
  return sessionFromJson(j, path);
}

}  // namespace tomowb::gui
