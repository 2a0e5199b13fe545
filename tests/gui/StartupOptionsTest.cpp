// tomowb's command line as a process (issue #21, point 9): --help needs no display; a display
// without OpenGL gets a message naming the problem and exit code 3, not a crash; --device and
// --variant refuse what does not exist before any window opens; every demo --help names opens by
// its name.
#include <gtest/gtest.h>

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

namespace tomowb::gui {
namespace {

struct Outcome {
  int exitCode = -1;
  bool crashed = false;
  QString output;
};

Outcome runTomowb(const QStringList& arguments, const QProcessEnvironment& environment) {
  QProcess process;
  process.setProcessEnvironment(environment);
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(QStringLiteral(TOMOWB_GUI_PATH), arguments);
  EXPECT_TRUE(process.waitForFinished(120000)) << arguments.join(' ').toStdString();
  return {process.exitCode(), process.exitStatus() == QProcess::CrashExit,
          QString::fromLocal8Bit(process.readAll())};
}

QProcessEnvironment withoutDisplay() {
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.remove(QStringLiteral("DISPLAY"));
  environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
  environment.insert(QStringLiteral("XDG_CONFIG_HOME"), QStringLiteral("/tmp/tomowb-test-config"));
  return environment;
}

TEST(StartupOptions, HelpNeedsNoDisplay) {
  const Outcome o = runTomowb({QStringLiteral("--help")}, withoutDisplay());
  EXPECT_FALSE(o.crashed);
  EXPECT_EQ(o.exitCode, 0) << o.output.toStdString();
  EXPECT_TRUE(o.output.contains(QStringLiteral("--device"))) << o.output.toStdString();
  EXPECT_TRUE(o.output.contains(QStringLiteral("--variant"))) << o.output.toStdString();
}

TEST(StartupOptions, WithoutOpenGlTheWindowSaysSoInsteadOfCrashing) {
  // Qt's offscreen platform without an X display has no OpenGL at all.
  QProcessEnvironment environment = withoutDisplay();
  environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  const Outcome o =
      runTomowb({QStringLiteral("--demo"), QStringLiteral("--quit-after-run")}, environment);
  EXPECT_FALSE(o.crashed) << o.output.toStdString();
  EXPECT_EQ(o.exitCode, 3) << o.output.toStdString();
  EXPECT_TRUE(o.output.contains(QStringLiteral("needs OpenGL"))) << o.output.toStdString();
  EXPECT_TRUE(o.output.contains(QStringLiteral("tomowb-cli"))) << o.output.toStdString();
}

TEST(StartupOptions, UnknownDevicesAndVariantsAreRefusedByName) {
  QProcessEnvironment environment = withoutDisplay();
  environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  Outcome o =
      runTomowb({QStringLiteral("--variant"), QStringLiteral("fdk.bp.nonsense")}, environment);
  EXPECT_EQ(o.exitCode, 2) << o.output.toStdString();
  EXPECT_TRUE(o.output.contains(QStringLiteral("fdk.bp.nonsense"))) << o.output.toStdString();
  o = runTomowb({QStringLiteral("--device"), QStringLiteral("tpu")}, environment);
  EXPECT_EQ(o.exitCode, 2) << o.output.toStdString();
  EXPECT_TRUE(o.output.contains(QStringLiteral("--device must be cpu, gpu or gpu:N")))
      << o.output.toStdString();
}

TEST(StartupOptions, ThePetDemoOpensByItsNameAndRunsDirectOnTheDeviceAsked) {
  // "--demo pet", as --help and docs/gui.md write it, was read as the Shepp-Logan demo and a
  // file named "pet": the window ran FDK.
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
  const Outcome o = runTomowb(
      {QStringLiteral("--reset-settings"), QStringLiteral("--demo"), QStringLiteral("pet"),
       QStringLiteral("--run"), QStringLiteral("--device"), QStringLiteral("cpu"),
       QStringLiteral("--iterations"), QStringLiteral("1"), QStringLiteral("--screenshot-dir"),
       dir.path(), QStringLiteral("--quit-after-run")},
      environment);
  ASSERT_FALSE(o.crashed) << o.output.toStdString();
  ASSERT_EQ(o.exitCode, 0) << o.output.toStdString();
  QFile file(dir.filePath(QStringLiteral("run-summary.json")));
  ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << o.output.toStdString();
  const nlohmann::json summary = nlohmann::json::parse(file.readAll().toStdString());
  EXPECT_EQ(summary.value("state", ""), "finished");
  const nlohmann::json& record = summary.at("record");
  EXPECT_EQ(record.value("algorithm", ""), "direct");
  EXPECT_EQ(record.at("parameters").value("device", ""), "cpu");
}

}  // namespace
}  // namespace tomowb::gui
