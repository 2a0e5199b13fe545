// CompareViewReport.cpp: "Export report": report.md, comparison.json and PNGs of the views,
// profiles and histogram written into a folder the user picks.
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QSaveFile>

#include "gui/CompareView.h"
#include "gui/CompareViewInternal.h"
#include "gui/ExportFiles.h"
#include "gui/core/RunController.h"
#include "render/ChartView.h"

namespace tomowb::gui {

namespace {

using detail::Mode;
using detail::number;
using detail::Which;

bool savePng(const QImage& image, const QString& path, QString* error) {
  QSaveFile file(path);
  if (image.isNull() || !file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") ||
      !file.commit()) {
    if (error)
      *error = path + ": " + (image.isNull() ? QStringLiteral("empty image") : file.errorString());
    return false;
  }
  return true;
}

QString runDetails(const RunInfo& run) {
  const nlohmann::json& p = run.spec.parameters;
  QStringList parts;
  parts << run.spec.algorithm.toUpper();
  if (p.value("variant", nlohmann::json()).is_string())
    parts << QString::fromStdString(p["variant"].get<std::string>());
  if (p.value("forwardVariant", nlohmann::json()).is_string())
    parts << QString::fromStdString(p["forwardVariant"].get<std::string>() + " + " +
                                    p.value("backVariant", std::string()));
  if (run.record.contains("report") && run.record["report"].is_object() &&
      run.record["report"].value("device", nlohmann::json()).is_string())
    parts << QString::fromStdString(run.record["report"]["device"].get<std::string>());
  parts << QObject::tr("%1 s").arg(run.seconds, 0, 'f', 1);
  return parts.join(QStringLiteral(", "));
}

}  // namespace

// --- export -------------------------------------------------------------------------------------

QString CompareView::entryDetails(int entry) const {
  if (entry < 0) return {};
  const Entry& e = entries_[static_cast<std::size_t>(entry)];
  const RunInfo* run = e.runId >= 0 ? runs_.run(e.runId) : nullptr;
  if (run != nullptr) return runDetails(*run);
  return tr("%1 x %2 x %3 voxels").arg(e.volume->nx()).arg(e.volume->ny()).arg(e.volume->nz());
}

void CompareView::chooseReportFolder() {
  QString suggested = QStringLiteral("compare");
  if (entryA_ >= 0 && entryB_ >= 0) {
    const int a = entries_[static_cast<std::size_t>(entryA_)].runId;
    const int b = entries_[static_cast<std::size_t>(entryB_)].runId;
    if (a >= 0 && b >= 0) suggested = QStringLiteral("compare-run%1-run%2").arg(a).arg(b);
  }
  const QString folder =
      QFileDialog::getSaveFileName(this, tr("Export comparison report (a folder)"), suggested,
                                   tr("Folders (*)"), nullptr, QFileDialog::DontConfirmOverwrite);
  if (folder.isEmpty()) return;
  const QDir dir(folder);
  if (dir.exists() && !dir.isEmpty()) {
    const auto answer = QMessageBox::question(
        this, tr("Export report"),
        tr("%1 already holds files. Write the report into it (files of the same names are "
           "replaced)?")
            .arg(folder));
    if (answer != QMessageBox::Yes) return;
  }
  QString error;
  if (exportReport(folder, &error))
    emit statusMessage(tr("Report written to %1").arg(QDir(folder).filePath("report.md")), 10000);
  else
    QMessageBox::warning(this, tr("Export report"), error);
}

bool CompareView::exportReport(const QString& folder, QString* error) {
  const auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!model_.comparison()) return fail(tr("Nothing to export: choose A and B of the same shape"));
  if (model_.busy() && !model_.waitUntilDone(10 * 60 * 1000))
    return fail(tr("The figures took too long"));
  const std::optional<qa::RunComparison> comparison = model_.comparison();
  if (!comparison) return fail(tr("Nothing to export: %1").arg(model_.problem()));
  if (!QDir().mkpath(folder)) return fail(tr("Cannot create the folder %1").arg(folder));
  const QDir dir(folder);

  // A and B are grabbed from the side-by-side views: switch to them for the pictures.
  const Mode mode = views_->mode();
  if (mode != Mode::SideBySide) setMode(Mode::SideBySide);
  for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
  QString why;
  bool ok = savePng(views_->grab(Which::A), dir.filePath(QStringLiteral("a.png")), &why) &&
            savePng(views_->grab(Which::B), dir.filePath(QStringLiteral("b.png")), &why) &&
            savePng(views_->grab(Which::Difference), dir.filePath(QStringLiteral("difference.png")),
                    &why);
  ok = ok && profileChart_->exportPng(dir.filePath(QStringLiteral("profile.png")), &why) &&
       profileDifferenceChart_->exportPng(dir.filePath(QStringLiteral("profile-difference.png")),
                                          &why) &&
       histogramChart_->exportPng(dir.filePath(QStringLiteral("histogram.png")), &why);
  if (mode != Mode::SideBySide) setMode(mode);
  if (!ok) return fail(why);

  const Entry& a = entries_[static_cast<std::size_t>(entryA_)];
  const Entry& b = entries_[static_cast<std::size_t>(entryB_)];
  const qa::AccuracyClass c = model_.accuracyClass();
  const qa::Tolerance tolerance = model_.tolerances()[c];
  const QString informative = model_.informative();
  nlohmann::json json = qa::toJson(*comparison);
  json["test"] = {{"name", a.name.toStdString()}, {"run", a.runId}};
  json["reference"] = {{"name", b.name.toStdString()}, {"run", b.runId}};
  if (informative.isEmpty()) {
    const CompareVerdict verdict = judgeComparison(*comparison, c, tolerance);
    json["accuracyClass"] = qa::toString(c);
    json["tolerance"] = {{"maxNrmse", tolerance.maxNrmse},
                         {"maxAbsRelative", tolerance.maxAbsRelative}};
    json["passed"] = verdict.passed;
    json["verdict"] = verdict.text.toStdString();
  } else {
    json["verdict"] = "informative (" + informative.toStdString() + ")";
    json["informative"] = informative.toStdString();
  }
  if (!saveTextAtomically(dir.filePath(QStringLiteral("comparison.json")),
                          QString::fromStdString(json.dump(2) + "\n"), &why))
    return fail(why);

  const render::CompareSliceView* view = views_->view(Which::A);
  const render::WindowLevel wl = views_->windowLevel();
  CompareReportInfo info;
  info.testName = a.name;
  info.referenceName = b.name;
  info.testDetails = entryDetails(entryA_);
  info.referenceDetails = entryDetails(entryB_);
  info.viewText =
      tr("%1 slice %2 of %3 (%4 = %5 mm). A and B at window %6, level %7; A - B at +-%8 "
         "(blue: A below B, white: equal, red: A above B).")
          .arg(render::SliceView::axisName(view->axis()))
          .arg(view->slice())
          .arg(view->sliceCount() - 1)
          .arg(QChar("xyz"[view->axisIndex()]))
          .arg(view->slicePositionMm(), 0, 'f', 2)
          .arg(number(wl.window), number(wl.level), number(views_->differenceHalfWindow(), 3));
  info.pictures = {{QStringLiteral("a.png"), tr("A: %1").arg(a.name)},
                   {QStringLiteral("b.png"), tr("B: %1").arg(b.name)},
                   {QStringLiteral("difference.png"), tr("A - B")},
                   {QStringLiteral("profile.png"), tr("Line profile through A and B")},
                   {QStringLiteral("profile-difference.png"), tr("Line profile of A - B")},
                   {QStringLiteral("histogram.png"), tr("Histogram of A - B")}};
  if (!saveTextAtomically(dir.filePath(QStringLiteral("report.md")),
                          compareReportMarkdown(info, *comparison, c, tolerance, informative),
                          &why))
    return fail(why);
  return true;
}

}  // namespace tomowb::gui
