// tomowb: the Tomo Workbench desktop application. `tomowb [FILE...]` opens files, `tomowb --demo`
// opens the built-in demo; `--run`, `--screenshot-dir` and `--quit-after-run` drive it from
// scripts (scripts/screenshots.sh uses them under Xvfb).
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QGuiApplication>
#include <QMessageBox>
#include <QSettings>
#include <QTimer>
#include <cstdio>
#include <exception>
#include <string_view>

#include "gui/AlgorithmPanel.h"
#include "gui/MainWindow.h"
#include "gui/Resources.h"
#include "gui/SafetyNet.h"
#include "gui/core/DemoData.h"
#include "recon/catalog/Builtins.h"
#include "recon/core/HostMemory.h"
#include "recon/variant/VariantRegistry.h"
#include "render/EventTrace.h"
#include "render/VtkOpenGLWidget.h"

namespace {

// Times each event it delivers while tomowb::render::EventTrace is on (--measure): the
// responsiveness report then names the handler behind a stall.
class TracingApplication final : public QApplication {
 public:
  using QApplication::QApplication;
  bool notify(QObject* receiver, QEvent* event) override {
    const tomowb::render::EventTrace::Dispatch timed(receiver, event);
    return QApplication::notify(receiver, event);
  }
};

// The TOF-PET demo is not one of the projection demos (DemoKind): its list mode is simulated.
bool isPetDemoName(const QString& name) {
  return name.compare(QStringLiteral("pet"), Qt::CaseInsensitive) == 0;
}

// A word after --demo that names a demo (else it is a file to open, and --demo means Shepp-Logan).
bool isDemoName(const QString& word) {
  if (isPetDemoName(word)) return true;
  try {
    tomowb::gui::demoKindFromName(word);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  // --help and --version print and exit: they need no display.
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if ((a == "--help" || a == "-h" || a == "--version" || a == "-v" || a == "--help-all") &&
        qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
      qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  tomowb::render::VtkOpenGLWidget::configureDefaultSurfaceFormat();
  TracingApplication app(argc, argv);
  tomowb::gui::initResources();
  QApplication::setOrganizationName(QStringLiteral("TomoWorkbench"));
  QApplication::setApplicationName(QStringLiteral("tomowb"));
  QApplication::setApplicationDisplayName(QStringLiteral("Tomo Workbench"));
  QApplication::setApplicationVersion(QStringLiteral(TOMOWB_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("tomowb"));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Tomo Workbench: tomographic reconstruction with live slices, throughput "
                     "and contrast-to-noise plots."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("files"),
                               QStringLiteral("projections or volumes to open"),
                               QStringLiteral("[FILE...]"));
  const QCommandLineOption demo(
      QStringLiteral("demo"),
      QStringLiteral("open a built-in demo: shepp-logan (default), cnr, et (electron "
                     "tomography tilt series), helical (helical CT with Poisson noise) or pet "
                     "(TOF-PET list mode of the PET phantom, reconstructed with DIRECT)"),
      QStringLiteral("kind"));
  const QCommandLineOption demoSize(QStringLiteral("demo-size"),
                                    QStringLiteral("demo volume edge in voxels (default 128; the "
                                                   "ET demo's detector is 2N x N/2)"),
                                    QStringLiteral("voxels"), QStringLiteral("128"));
  const QCommandLineOption run(QStringLiteral("run"),
                               QStringLiteral("start the algorithm panel's algorithm (FDK, or SIRT "
                                              "for a tilt series) once the data is loaded"));
  const QCommandLineOption algorithm(
      QStringLiteral("algorithm"),
      QStringLiteral("algorithm of that run: %1")
          .arg(QString::fromStdString(tomowb::catalog::AlgorithmCatalog::builtins().idList())),
      QStringLiteral("name"));
  const QCommandLineOption iterations(QStringLiteral("iterations"),
                                      QStringLiteral("iterations of an iterative run"),
                                      QStringLiteral("count"));
  const QCommandLineOption volumeSize(QStringLiteral("volume-size"),
                                      QStringLiteral("volume edge of that run, voxels"),
                                      QStringLiteral("voxels"));
  const QCommandLineOption screenshots(
      QStringLiteral("screenshot-dir"),
      QStringLiteral("save PNG screenshots of the window during and after the run into DIR"),
      QStringLiteral("dir"));
  const QCommandLineOption quitAfterRun(QStringLiteral("quit-after-run"),
                                        QStringLiteral("exit when the run has ended (exit code 0 "
                                                       "if it finished)"));
  const QCommandLineOption layout(QStringLiteral("layout"),
                                  QStringLiteral("view layout: four-up or one-up"),
                                  QStringLiteral("name"));
  const QCommandLineOption resetSettings(QStringLiteral("reset-settings"),
                                         QStringLiteral("forget the saved layout, recent files "
                                                        "and presets"));
  const QCommandLineOption noPreview(QStringLiteral("no-live-preview"),
                                     QStringLiteral("do not show intermediate volumes during runs "
                                                    "(to measure what they cost)"));
  const QCommandLineOption tour(QStringLiteral("tour"),
                                QStringLiteral("with --screenshot-dir: after the run, also save a "
                                               "screenshot of each main dock (CNR ROIs are "
                                               "placed on the CNR demo's inserts)"));
  const QCommandLineOption device(
      QStringLiteral("device"),
      QStringLiteral("device of the run: cpu, gpu (the fastest GPU) or gpu:N (default: the "
                     "fastest GPU where the algorithm has a GPU variant, else the CPU)"),
      QStringLiteral("device"));
  const QCommandLineOption variant(
      QStringLiteral("variant"),
      QStringLiteral("kernel variant of the run (fdk.bp.tex, et.fp.fast, ...; tomowb-cli "
                     "variants lists them); several, comma-separated, run one after another"),
      QStringLiteral("names"));
  const QCommandLineOption compare(QStringLiteral("compare"),
                                   QStringLiteral("after the runs, open the compare view on the "
                                                  "last two (screenshot tomowb-compare.png)"));
  const QCommandLineOption sweep(QStringLiteral("sweep"),
                                 QStringLiteral("after the runs, sweep every kernel variant on "
                                                "the device (screenshot tomowb-sweep.png)"));
  const QCommandLineOption measure(
      QStringLiteral("measure"),
      QStringLiteral("with --screenshot-dir: after the runs, measure responsiveness (launch to "
                     "window, first slice, UI stalls, window/level drag frame rate) into "
                     "responsiveness.json"));
  parser.addOptions({demo, demoSize, run, algorithm, iterations, volumeSize, screenshots,
                     quitAfterRun, layout, resetSettings, noPreview, tour, device, variant, compare,
                     sweep, measure});
  // "--demo" alone means the Shepp-Logan demo: accept it without a value.
  QStringList arguments = QApplication::arguments();
  for (int i = 1; i < arguments.size(); ++i)
    if (arguments[i] == QStringLiteral("--demo") &&
        (i + 1 >= arguments.size() || arguments[i + 1].startsWith(QLatin1Char('-')) ||
         !isDemoName(arguments[i + 1])))
      arguments[i] = QStringLiteral("--demo=shepp-logan");
  parser.process(arguments);

  if (parser.isSet(resetSettings)) QSettings().clear();

  tomowb::gui::StartupOptions options;
  options.files = parser.positionalArguments();
  options.demo = parser.isSet(demo);
  options.demoName = parser.value(demo);
  if (options.demo && !isPetDemoName(options.demoName)) {
    try {
      tomowb::gui::demoKindFromName(options.demoName);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tomowb: --demo: %s\n", e.what());
      return 2;
    }
  }
  bool ok = true;
  options.demoSize = parser.value(demoSize).toInt(&ok);
  if (!ok || options.demoSize < 16 || options.demoSize > 1024) {
    std::fprintf(stderr, "tomowb: --demo-size must be an integer from 16 to 1024\n");
    return 2;
  }
  options.runAfterLoad = parser.isSet(run);
  if (parser.isSet(volumeSize)) {
    options.volumeSize = parser.value(volumeSize).toInt(&ok);
    if (!ok || options.volumeSize < 1) {
      std::fprintf(stderr, "tomowb: --volume-size must be a positive integer\n");
      return 2;
    }
  }
  if (parser.isSet(algorithm)) {
    options.algorithm = parser.value(algorithm);
    const auto& algorithms = tomowb::catalog::AlgorithmCatalog::builtins();
    if (!algorithms.find(options.algorithm.toLower().toStdString())) {
      std::fprintf(stderr, "tomowb: --algorithm must be one of %s\n", algorithms.idList().c_str());
      return 2;
    }
  }
  if (parser.isSet(iterations)) {
    options.iterations = parser.value(iterations).toInt(&ok);
    if (!ok || options.iterations < 1 || options.iterations > 1000000) {
      std::fprintf(stderr, "tomowb: --iterations must be an integer from 1 to 1000000\n");
      return 2;
    }
  }
  options.screenshotDir = parser.value(screenshots);
  if (!options.screenshotDir.isEmpty()) QDir().mkpath(options.screenshotDir);
  options.quitAfterRun = parser.isSet(quitAfterRun);
  options.layout = parser.value(layout);
  options.livePreview = !parser.isSet(noPreview);
  options.tour = parser.isSet(tour);
  if (parser.isSet(device)) {
    const QString d = parser.value(device).toLower();
    const bool gpuN = d.startsWith(QStringLiteral("gpu:"));
    if (d != QStringLiteral("cpu") && d != QStringLiteral("gpu") &&
        !(gpuN && d.mid(4).toInt(&ok) >= 0 && ok)) {
      std::fprintf(stderr, "tomowb: --device must be cpu, gpu or gpu:N\n");
      return 2;
    }
    options.device = d;
  }
  if (parser.isSet(variant)) {
    for (const QString& name : parser.value(variant).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
      if (!tomowb::VariantRegistry::builtins().find(name.trimmed().toStdString())) {
        std::fprintf(stderr,
                     "tomowb: --variant: no kernel variant is called '%s' (tomowb-cli "
                     "variants lists them)\n",
                     qPrintable(name));
        return 2;
      }
      options.variants << name.trimmed();
    }
  }
  options.compare = parser.isSet(compare);
  options.sweep = parser.isSet(sweep);
  options.measure = parser.isSet(measure);
  if (options.measure || qEnvironmentVariableIsSet("TOMOWB_TRACE_EVENTS"))
    tomowb::render::EventTrace::setEnabled(true);

  // The views draw with OpenGL: without it (no GLX or EGL on this display) say so and stop,
  // instead of crashing inside the first view.
  if (const QString why = tomowb::render::VtkOpenGLWidget::openGlProblem(); !why.isEmpty()) {
    const QString text =
        QStringLiteral(
            "Tomo Workbench needs OpenGL 3.2 for its slice and 3-D views, and this "
            "display offers none: %1.\n\nStart it on a display with OpenGL (under "
            "Xvfb: Mesa's GLX, `xvfb-run -s \"+extension GLX\"`), or use tomowb-cli, "
            "which needs no display.")
            .arg(why);
    std::fprintf(stderr, "tomowb: %s\n", qPrintable(text));
    if (!options.quitAfterRun && QGuiApplication::platformName() != QStringLiteral("offscreen"))
      QMessageBox::critical(nullptr, QStringLiteral("Tomo Workbench"), text);
    return 3;
  }
  // Large volumes and projection stacks are freed (and unpinned, with a GPU) on a thread of
  // their own, not in the GUI thread (recon/core/HostMemory.h); all of them before main returns.
  tomowb::setHostBufferReleaseInBackground(true);
  struct FreedBeforeExit {
    FreedBeforeExit() = default;
    FreedBeforeExit(const FreedBeforeExit&) = delete;
    FreedBeforeExit& operator=(const FreedBeforeExit&) = delete;
    ~FreedBeforeExit() { tomowb::waitForHostBufferReleases(); }
  } freedBeforeExit;  // destroyed after the window, whose volumes it waits for
  tomowb::gui::MainWindow window;
  window.show();
  // The first turn of the event loop after show(): the window is on screen.
  QTimer::singleShot(0, &window,
                     [&window] { window.setLaunchToWindowMs(tomowb::gui::processAgeMs()); });
  QTimer::singleShot(0, &window, [&window, options] { window.applyStartupOptions(options); });
  // Crash recovery and the 5-minute autosave (SafetyNet.h): for people, not scripted runs.
  if (options.screenshotDir.isEmpty() && !options.quitAfterRun)
    QTimer::singleShot(0, &window, [&window] {
      window.safetyNet().offerRecovery();
      window.safetyNet().startAutosave();
    });
  return QApplication::exec();
}
