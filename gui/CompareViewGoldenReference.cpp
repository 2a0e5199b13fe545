// CompareViewGoldenReference.cpp: the golden reference of a run (the same input and parameters
// queued on the CPU float64 path) and the compare view's answer when such a run ends.
#include <QPushButton>
#include <algorithm>

#include "gui/CompareView.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

// --- golden reference ---------------------------------------------------------------------------

void CompareView::noteRunInput(int runId, std::shared_ptr<const ProjectionStack> projections,
                               const Geometry* geometry) {
  RunInput input;
  input.projections = std::move(projections);
  if (geometry != nullptr) input.geometry = *geometry;
  inputs_[runId] = std::move(input);
}

int CompareView::finishedGoldenReferenceOf(int runId) const {
  int newest = -1;
  for (int id : runs_.runIds()) {
    const RunInfo* r = runs_.run(id);
    if (r != nullptr && r->state == RunState::Finished && r->result &&
        r->spec.parameters.value("goldenReferenceFor", -1) == runId)
      newest = std::max(newest, id);
  }
  return newest;
}

QString CompareView::goldenReferenceBlocker() const {
  if (entryA_ < 0) return tr("Choose A first");
  const int runId = entries_[static_cast<std::size_t>(entryA_)].runId;
  const RunInfo* run = runs_.run(runId);
  if (run == nullptr)
    return tr("A is a loaded volume, not a run: reconstruct it to get a reference");
  return goldenReferenceUnavailable(*run);
}

int CompareView::requestGoldenReference(int runId) {
  const RunInfo* run = runs_.run(runId);
  if (run == nullptr) {
    emit statusMessage(tr("Golden reference: there is no run %1").arg(runId), 8000);
    return -1;
  }
  if (const int existing = finishedGoldenReferenceOf(runId); existing >= 0) {
    compareRuns(runId, existing);
    emit showRequested();
    emit statusMessage(tr("Run %1 is the float64 reference of run %2").arg(existing).arg(runId),
                       6000);
    return existing;
  }
  for (const auto& [reference, test] : pendingGolden_)
    if (test == runId) {
      emit statusMessage(tr("The golden reference of run %1 is already queued as run %2")
                             .arg(runId)
                             .arg(reference),
                         6000);
      return reference;
    }
  const QString why = goldenReferenceUnavailable(*run);
  if (!why.isEmpty()) {
    emit statusMessage(tr("No golden reference: %1").arg(why), 10000);
    return -1;
  }
  // The input the run was started with; else the open projections, if they are the same scan.
  RunInput input;
  if (const auto it = inputs_.find(runId); it != inputs_.end()) {
    input = it->second;
  } else if (const auto& open = workspace_.projections()) {
    const nlohmann::json& recorded = run->spec.parameters.value("input", nlohmann::json::object());
    if (recorded.value("views", -1) == open->viewCount() &&
        recorded.value("rows", -1) == open->rows() && recorded.value("cols", -1) == open->cols() &&
        recorded.value("name", std::string()) == workspace_.projectionsName().toStdString()) {
      input.projections = open;
      if (const Geometry* g = workspace_.geometry()) input.geometry = *g;
    }
  }
  if (!input.projections) {
    emit statusMessage(
        tr("No golden reference: the projections run %1 used are no longer open").arg(runId),
        10000);
    return -1;
  }
  std::shared_ptr<const Volume> warmStart;
  if (const RunInfo* start = runs_.run(run->spec.parameters.value("warmStartRun", -1)))
    warmStart = start->result;
  try {
    RunSpec spec = makeGoldenReferenceRun(*run, input.projections,
                                          input.geometry ? &*input.geometry : nullptr, warmStart);
    const int id = runs_.enqueue(std::move(spec));
    inputs_[id] = input;
    pendingGolden_[id] = runId;
    emit statusMessage(tr("Run %1 queued: the CPU float64 reference of run %2; the compare view "
                          "opens when it finishes")
                           .arg(id)
                           .arg(runId),
                       10000);
    updateButtons();
    return id;
  } catch (const std::exception& e) {
    emit statusMessage(tr("No golden reference: %1").arg(QString::fromStdString(e.what())), 10000);
    return -1;
  }
}

void CompareView::onRunFinished(int runId) {
  rebuildEntries();
  const auto it = pendingGolden_.find(runId);
  if (it == pendingGolden_.end()) return;
  const int test = it->second;
  pendingGolden_.erase(it);
  if (compareRuns(test, runId)) {
    emit showRequested();
    emit statusMessage(
        tr("Run %1 (CPU float64) finished: compared with run %2").arg(runId).arg(test), 8000);
  }
}

void CompareView::onRunEnded(int runId) {
  const auto it = pendingGolden_.find(runId);
  if (it == pendingGolden_.end()) return;
  const RunInfo* run = runs_.run(runId);
  emit statusMessage(
      tr("The golden reference of run %1 (run %2) %3")
          .arg(it->second)
          .arg(runId)
          .arg(run != nullptr && run->state == RunState::Failed ? tr("failed: %1").arg(run->error)
                                                                : tr("was cancelled")),
      10000);
  pendingGolden_.erase(it);
  updateButtons();
}

namespace {

QString referenceText(VariantRole role) {
  try {
    return QString::fromStdString(VariantRegistry::builtins().referenceFor(role).name);
  } catch (const ParameterError&) {
    return QObject::tr("none in this build");
  }
}

}  // namespace

void CompareView::updateButtons() {
  const QString blocker = goldenReferenceBlocker();
  goldenButton_->setEnabled(blocker.isEmpty());
  goldenButton_->setToolTip(
      blocker.isEmpty()
          ? tr("Run A's input and parameters again on the CPU float64 path (FDK: %1; SIRT, "
               "OS-SIRT, SART: %2 + %3) and compare A against it")
                .arg(referenceText(VariantRole::FdkBackprojector),
                     referenceText(VariantRole::ForwardProjector),
                     referenceText(VariantRole::Backprojector))
          : blocker);
  exportButton_->setEnabled(model_.comparison().has_value());
}

}  // namespace tomowb::gui
