// Session: a session file round-trips every field, finds its files again after the folder moved
// (relative paths), names the file and the field for a bad one, and is written atomically.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <fstream>

#include "gui/core/Session.h"
#include "recon/core/Error.h"

namespace tomowb::gui {
namespace {

SessionData sample(const QString& folder) {
  SessionData s;
  SessionData::Projections p;
  p.name = QStringLiteral("scan.json");
  p.path = folder + QStringLiteral("/data/scan.json");
  p.geometry = {{"version", 1}, {"views", nlohmann::json::array()}};
  p.waterPerMm = 0.0201;
  s.projections = p;
  SessionData::Run r;
  r.id = 3;
  r.title = QStringLiteral("SIRT 32x32x32");
  r.algorithm = QStringLiteral("sirt");
  r.state = QStringLiteral("finished");
  r.parameters = {{"iterations", 50}};
  r.record = {{"stoppedByUser", true}};
  r.seconds = 1.5;
  r.resultPath = folder + QStringLiteral("/results/run3.mhd");
  s.runs.push_back(r);
  s.volumes.push_back({QStringLiteral("run 3: SIRT"), r.resultPath, 3, true});
  s.rois = nlohmann::json::array({{{"id", 1}, {"label", "ROI 1"}}});
  s.windowGeometry = QByteArray("\x01\x02geometry", 10);
  s.windowState = QByteArray("state\x00\xff", 7);
  return s;
}

TEST(Session, RoundTripsEveryField) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("a.tomowb-session"));
  const SessionData s = sample(dir.path());
  writeSessionFile(path, s);
  const SessionData back = readSessionFile(path);
  ASSERT_TRUE(back.projections);
  EXPECT_EQ(back.projections->name, s.projections->name);
  EXPECT_EQ(back.projections->path, s.projections->path);
  EXPECT_EQ(back.projections->geometry, s.projections->geometry);
  EXPECT_EQ(back.projections->waterPerMm, s.projections->waterPerMm);
  EXPECT_TRUE(back.projections->demoKind.isEmpty());
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].id, 3);
  EXPECT_EQ(back.runs[0].algorithm, QStringLiteral("sirt"));
  EXPECT_EQ(back.runs[0].parameters, s.runs[0].parameters);
  EXPECT_EQ(back.runs[0].record, s.runs[0].record);
  EXPECT_DOUBLE_EQ(back.runs[0].seconds, 1.5);
  EXPECT_EQ(back.runs[0].resultPath, s.runs[0].resultPath);
  ASSERT_EQ(back.volumes.size(), 1u);
  EXPECT_EQ(back.volumes[0].runId, 3);
  EXPECT_TRUE(back.volumes[0].current);
  EXPECT_EQ(back.rois, s.rois);
  EXPECT_EQ(back.windowGeometry, s.windowGeometry);
  EXPECT_EQ(back.windowState, s.windowState);
  // No temporary file is left beside it.
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files),
            QStringList{QStringLiteral("a.tomowb-session")});
}

TEST(Session, KeepsTheDemoParameters) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("demo.tomowb-session"));
  SessionData s;
  s.projections =
      SessionData::Projections{QStringLiteral("demo"), {}, QStringLiteral("et"), 48, {}};
  writeSessionFile(path, s);
  const SessionData back = readSessionFile(path);
  ASSERT_TRUE(back.projections);
  EXPECT_EQ(back.projections->demoKind, QStringLiteral("et"));
  EXPECT_EQ(back.projections->demoSize, 48);
  EXPECT_TRUE(back.projections->path.isEmpty());
}

TEST(Session, FindsItsFilesAfterTheFolderMoved) {
  QTemporaryDir dir;
  QDir(dir.path()).mkpath(QStringLiteral("old/results"));
  const QString oldFolder = dir.filePath(QStringLiteral("old"));
  const QString path = oldFolder + QStringLiteral("/s.tomowb-session");
  writeSessionFile(path, sample(oldFolder));
  std::ofstream(QString(oldFolder + QStringLiteral("/results/run3.mhd")).toStdString()) << "x";
  ASSERT_TRUE(QDir(dir.path()).rename(QStringLiteral("old"), QStringLiteral("new")));
  const SessionData back = readSessionFile(dir.filePath(QStringLiteral("new/s.tomowb-session")));
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].resultPath, dir.filePath(QStringLiteral("new/results/run3.mhd")));
  // The projections file exists nowhere: the absolute path stays, for the error message.
  EXPECT_EQ(back.projections->path, oldFolder + QStringLiteral("/data/scan.json"));
}

void writeText(const QString& path, const std::string& text) {
  std::ofstream(path.toStdString()) << text;
}

std::string errorOf(const QString& path) {
  try {
    readSessionFile(path);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(Session, BadFilesNameTheFileAndTheField) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("bad.tomowb-session"));
  writeText(path, R"({"format": "tomowb-session", "version": 1, "runs": [{"id": 1}]})");
  std::string e = errorOf(path);
  EXPECT_NE(e.find("bad.tomowb-session"), std::string::npos) << e;
  EXPECT_NE(e.find("runs[0].algorithm"), std::string::npos) << e;

  writeText(path, R"({"format": "tomowb-session", "version": 7})");
  e = errorOf(path);
  EXPECT_NE(e.find("'version'"), std::string::npos) << e;
  EXPECT_NE(e.find("got 7"), std::string::npos) << e;

  writeText(path, R"({"format": "something-else", "version": 1})");
  EXPECT_NE(errorOf(path).find("'format'"), std::string::npos);

  writeText(path, R"({"format": "tomowb-session", "version": 1, "volumes": [{"run": "x"}]})");
  e = errorOf(path);
  EXPECT_NE(e.find("volumes[0].run"), std::string::npos) << e;

  writeText(path, R"({"format": "tomowb-session", "version": 1,
                      "projections": {"name": "scan", "waterPerMm": -2}})");
  e = errorOf(path);
  EXPECT_NE(e.find("projections.waterPerMm"), std::string::npos) << e;

  writeText(path, R"({"format": "tomowb-session", "vers)");
  EXPECT_NE(errorOf(path).find("not valid JSON"), std::string::npos);

  EXPECT_NE(errorOf(dir.filePath(QStringLiteral("missing.tomowb-session"))).find("cannot open"),
            std::string::npos);
}

TEST(Session, AFailedWriteThrowsNamingThePathAndKeepsTheOldFile) {
  QTemporaryDir dir;
  EXPECT_THROW(writeSessionFile(dir.filePath(QStringLiteral("no/such/folder/s.tomowb-session")),
                                sample(dir.path())),
               IoError);
  const QString path = dir.filePath(QStringLiteral("s.tomowb-session"));
  writeSessionFile(path, sample(dir.path()));
  QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner);
  SessionData other = sample(dir.path());
  other.runs.clear();
  bool threw = false;
  try {
    writeSessionFile(path, other);
  } catch (const IoError&) {
    threw = true;
  }
  QFile::setPermissions(dir.path(),
                        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
  // Root may write anyway; when the write failed, the old session is intact.
  if (threw) EXPECT_EQ(readSessionFile(path).runs.size(), 1u);
}

}  // namespace
}  // namespace tomowb::gui
