// CompareViewPair.cpp: what CompareView can compare (runs and loaded volumes) and the pair A, B:
// choosing it (by hand, a default pair, the run list's selection), whether the runs' records make
// it judgeable (qa::checkComparability) and the CNR ROIs measured on it.
#include <QCheckBox>
#include <QComboBox>
#include <QSignalBlocker>
#include <algorithm>
#include <functional>

#include "gui/CompareView.h"
#include "gui/CompareViewInternal.h"
#include "gui/core/CommonGrid.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/io/GeometryJson.h"
#include "recon/metrics/Region.h"
#include "recon/qa/RunComparability.h"

namespace tomowb::gui {

namespace {

using detail::Mode;

QString shapeText(const Volume& v) {
  return QStringLiteral("%1 x %2 x %3").arg(v.nx()).arg(v.ny()).arg(v.nz());
}

}  // namespace

// --- what can be compared -----------------------------------------------------------------------

int CompareView::entryOfRun(int runId) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (runId >= 0 && entries_[i].runId == runId) return static_cast<int>(i);
  return -1;
}

int CompareView::entryOfVolume(const Volume* volume) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].volume.get() == volume) return static_cast<int>(i);
  return -1;
}

void CompareView::rebuildEntries() {
  const auto keyOf = [this](int entry) -> std::pair<int, const Volume*> {
    if (entry < 0 || entry >= static_cast<int>(entries_.size())) return {-1, nullptr};
    const Entry& e = entries_[static_cast<std::size_t>(entry)];
    return {e.runId, e.volume.get()};
  };
  const auto keyA = keyOf(entryA_), keyB = keyOf(entryB_);
  entries_.clear();
  for (const NamedVolume& v : workspace_.volumes())
    if (v.volume) entries_.push_back({v.name, v.volume, v.runId});
  // Finished runs whose result is not (or no longer) in the Data panel.
  for (int id : runs_.runIds()) {
    const RunInfo* run = runs_.run(id);
    if (run == nullptr || run->state != RunState::Finished || !run->result) continue;
    if (entryOfRun(id) >= 0) continue;
    entries_.push_back({tr("run %1: %2").arg(id).arg(run->spec.title), run->result, id});
  }
  const auto find = [this](const std::pair<int, const Volume*>& key) {
    if (key.second == nullptr) return -1;
    const int byRun = entryOfRun(key.first);
    return byRun >= 0 ? byRun : entryOfVolume(key.second);
  };
  const int a = find(keyA), b = find(keyB);
  const bool lost = (entryA_ >= 0 && a < 0) || (entryB_ >= 0 && b < 0);
  entryA_ = a;
  entryB_ = b;
  fillCombo(comboA_, entryA_);
  fillCombo(comboB_, entryB_);
  if (lost) {
    // What was compared is gone (a run forgotten, the data closed).
    entryA_ = entryB_ = -1;
    shownA_.reset();
    shownB_.reset();
    commonGridNote_.clear();
    model_.clear();
    views_->setVolumes(nullptr, nullptr, nullptr, {}, {});
    updateProfile();
  }
  updateButtons();
}

void CompareView::fillCombo(QComboBox* combo, int selected) {
  const QSignalBlocker block(combo);
  combo->clear();
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    combo->addItem(e.name, static_cast<int>(i));
    combo->setItemData(static_cast<int>(i),
                       QStringLiteral("%1\n%2 x %3 x %4 voxels")
                           .arg(e.name)
                           .arg(e.volume->nx())
                           .arg(e.volume->ny())
                           .arg(e.volume->nz()),
                       Qt::ToolTipRole);
  }
  combo->setCurrentIndex(selected);
}

// --- the pair -----------------------------------------------------------------------------------

bool CompareView::setPair(int a, int b) {
  const int n = static_cast<int>(entries_.size());
  if (a < 0 || b < 0 || a >= n || b >= n) return false;
  entryA_ = a;
  entryB_ = b;
  {
    const QSignalBlocker blockA(comboA_), blockB(comboB_);
    comboA_->setCurrentIndex(a);
    comboB_->setCurrentIndex(b);
  }
  const Entry& ea = entries_[static_cast<std::size_t>(a)];
  const Entry& eb = entries_[static_cast<std::size_t>(b)];
  drawnLine_.reset();
  // Runs on different grids of one lattice (helical FDK's slab, PWLS on every slice a ray
  // reaches) are compared on the part they share.
  const std::optional<CommonGridPair> common = onCommonGrid(ea.volume, eb.volume);
  shownA_ = common ? common->a : ea.volume;
  shownB_ = common ? common->b : eb.volume;
  commonGridNote_ =
      common && common->cut
          ? tr("Compared on the %1 x %2 x %3 voxels both grids share (A has %4, B %5)")
                .arg(shownA_->nx())
                .arg(shownA_->ny())
                .arg(shownA_->nz())
                .arg(shapeText(*ea.volume), shapeText(*eb.volume))
          : QString();
  views_->setVolumes(shownA_, shownB_, nullptr, ea.name, eb.name);
  model_.setPair(
      shownA_, shownB_,
      shownA_->shape() == shownB_->shape() ? cnrRois(*shownA_) : std::vector<qa::CnrRoi>{});
  // The class A's run promises (a loaded volume: exact).
  const RunInfo* run = ea.runId >= 0 ? runs_.run(ea.runId) : nullptr;
  const qa::AccuracyClass c =
      run != nullptr ? accuracyClassOfRun(run->spec.parameters) : qa::AccuracyClass::Exact;
  {
    const QSignalBlocker block(classCombo_);
    classCombo_->setCurrentIndex(classCombo_->findData(static_cast<int>(c)));
  }
  model_.setAccuracyClass(c);
  {
    // "Judge anyway" is said of one pair: a new pair starts without it.
    const QSignalBlocker block(assumeComparable_);
    assumeComparable_->setChecked(false);
  }
  updateInformative();
  if (views_->mode() != Mode::SideBySide) setMode(views_->mode());
  updateProfile();
  updateButtons();
  return true;
}

void CompareView::updateInformative() {
  const qa::ComparabilityCheck check = comparabilityOf(entryA_, entryB_);
  const bool unknown = check.kind == qa::Comparability::Unknown;
  assumeComparable_->setVisible(unknown);
  const bool judged = unknown && assumeComparable_->isChecked();
  model_.setInformative(judged ? QString() : QString::fromStdString(qa::informativeReason(check)));
}

void CompareView::setAssumeComparable(bool assume) {
  assumeComparable_->setChecked(assume);  // toggled: updateInformative
}

bool CompareView::assumeComparable() const {
  return assumeComparable_->isChecked();
}

qa::ComparabilityCheck CompareView::comparabilityOf(int entryA, int entryB) const {
  const int n = static_cast<int>(entries_.size());
  if (entryA < 0 || entryB < 0 || entryA >= n || entryB >= n)
    return {qa::Comparability::Comparable, {}};
  // What each run recorded: its algorithm and parameters (the run list's spec), and the input it
  // read (noteRunInput): the same projections object is the same data; its geometry as JSON.
  const auto recordOf = [this](const Entry& e, const QString& which,
                               QString* missing) -> std::optional<qa::RunRecord> {
    const RunInfo* run = e.runId >= 0 ? runs_.run(e.runId) : nullptr;
    if (run == nullptr) {
      *missing = tr("%1 (%2) is a loaded volume, not a run").arg(which, e.name);
      return std::nullopt;
    }
    qa::RunRecord r;
    r.algorithm = run->spec.algorithm.toUpper().toStdString();
    r.parameters =
        run->spec.parameters.is_object() ? run->spec.parameters : nlohmann::json::object();
    if (const auto it = inputs_.find(e.runId); it != inputs_.end()) {
      const RunInput& input = it->second;
      if (input.geometry)
        r.geometry = geometryToJson(*input.geometry);
      else if (input.projections)
        r.geometry = geometryToJson(input.projections->geometry());
    }
    return r;
  };
  QString missing;
  const Entry& ea = entries_[static_cast<std::size_t>(entryA)];
  const Entry& eb = entries_[static_cast<std::size_t>(entryB)];
  std::optional<qa::RunRecord> a = recordOf(ea, QStringLiteral("A"), &missing);
  std::optional<qa::RunRecord> b = a ? recordOf(eb, QStringLiteral("B"), &missing) : std::nullopt;
  qa::ComparabilityCheck check;
  if (!a || !b) {
    check = qa::cannotTell(missing.toStdString());
  } else {
    const auto ia = inputs_.find(ea.runId), ib = inputs_.find(eb.runId);
    if (ia != inputs_.end() && ib != inputs_.end() && ia->second.projections &&
        ia->second.projections == ib->second.projections) {
      // One projections object in memory: the same data, whatever the records can say of it.
      a->inputs = b->inputs = {{"(in memory)", "projections", 0, "same-projections-object"}};
    }
    check = qa::checkComparability(*a, *b);
  }
  return check;
}

bool CompareView::compareRuns(int runA, int runB) {
  rebuildEntries();
  return setPair(entryOfRun(runA), entryOfRun(runB));
}

bool CompareView::compareDefaultPair(int runA) {
  rebuildEntries();
  const auto finished = [this](int id) {
    const RunInfo* r = runs_.run(id);
    return r != nullptr && r->state == RunState::Finished && r->result != nullptr;
  };
  const auto isReference = [this](int id) {
    return isFloat64ReferenceRun(runs_.run(id)->spec.parameters);
  };
  std::vector<int> ids = runs_.runIds();
  std::sort(ids.begin(), ids.end(), std::greater<>());  // newest first
  if (runA < 0 || !finished(runA)) {
    runA = -1;
    for (int id : ids)
      if (finished(id) && !isReference(id)) {
        runA = id;
        break;
      }
    if (runA < 0 && !ids.empty() && finished(ids.front())) runA = ids.front();
  }
  // A reference alone: the run it checks is A, the reference B.
  if (const RunInfo* r = runs_.run(runA); r != nullptr && isReference(runA)) {
    const int checked = r->spec.parameters.value("goldenReferenceFor", -1);
    if (finished(checked)) return setPair(entryOfRun(checked), entryOfRun(runA));
  }
  const int a = entryOfRun(runA);
  if (a < 0) {
    // No run: the two newest volumes of the Data panel, if it has two.
    const int n = static_cast<int>(entries_.size());
    return n >= 2 && setPair(n - 2, n - 1);
  }
  const VolumeShape shape = entries_[static_cast<std::size_t>(a)].volume->shape();
  const auto fits = [&](int id) {
    return id != runA && finished(id) && runs_.run(id)->result->shape() == shape;
  };
  int runB = finishedGoldenReferenceOf(runA);
  for (int id : ids)
    if (runB < 0 && fits(id) && isReference(id)) runB = id;
  for (int id : ids)
    if (runB < 0 && fits(id) && id < runA) runB = id;
  for (int id : ids)
    if (runB < 0 && fits(id)) runB = id;
  if (runB >= 0) return setPair(a, entryOfRun(runB));
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (static_cast<int>(i) != a && entries_[i].volume->shape() == shape)
      return setPair(a, static_cast<int>(i));
  return setPair(a, a);  // nothing else of its shape: A against itself until B is chosen
}

bool CompareView::compareRunSelection(const std::vector<int>& runIds) {
  if (runIds.empty()) return compareDefaultPair();
  if (runIds.size() == 1) return compareDefaultPair(runIds.front());
  int a = std::min(runIds[0], runIds[1]), b = std::max(runIds[0], runIds[1]);
  const RunInfo* ra = runs_.run(a);
  const RunInfo* rb = runs_.run(b);
  if (ra == nullptr || rb == nullptr) return false;
  if (isFloat64ReferenceRun(ra->spec.parameters) && !isFloat64ReferenceRun(rb->spec.parameters))
    std::swap(a, b);
  return compareRuns(a, b);
}

void CompareView::swapPair() {
  if (entryA_ >= 0 && entryB_ >= 0) setPair(entryB_, entryA_);
}

void CompareView::setRois(const std::vector<render::SliceRoi>& rois) {
  rois_ = rois;
  // ROIs change while they are drawn on the slice views: measure once the view is shown.
  roisPending_ = !isVisible();
  if (!roisPending_) remeasureRois();
}

void CompareView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (roisPending_) remeasureRois();
}

void CompareView::remeasureRois() {
  roisPending_ = false;
  if (entryA_ >= 0 && entryB_ >= 0) {
    if (shownA_ && shownB_ && shownA_->shape() == shownB_->shape())
      model_.setPair(shownA_, shownB_, cnrRois(*shownA_));
  }
}

std::vector<qa::CnrRoi> CompareView::cnrRois(const Volume& grid) const {
  // Each signal ROI against the union of the background ROIs (as the CNR panel measures).
  const VolumeShape shape = grid.shape();
  const auto voxels = static_cast<std::size_t>(grid.voxelCount());
  std::vector<std::uint8_t> background(voxels, 0);
  bool anyBackground = false;
  for (const render::SliceRoi& roi : rois_)
    if (roi.role == render::SliceRoi::Background)
      for (std::int64_t i : render::roiVoxelIndices(grid, roi)) {
        background[static_cast<std::size_t>(i)] = 1;
        anyBackground = true;
      }
  std::vector<qa::CnrRoi> out;
  if (!anyBackground) return out;
  const auto backgroundRegion = std::make_shared<metrics::Region>(
      metrics::Region::mask(std::move(background), shape, "background"));
  for (const render::SliceRoi& roi : rois_) {
    if (roi.role != render::SliceRoi::Signal) continue;
    const std::vector<std::int64_t> indices = render::roiVoxelIndices(grid, roi);
    if (indices.empty()) continue;
    std::vector<std::uint8_t> mask(voxels, 0);
    for (std::int64_t i : indices) mask[static_cast<std::size_t>(i)] = 1;
    const std::string name = roi.label.toStdString();
    out.push_back({name, metrics::Region::mask(std::move(mask), shape, name), *backgroundRegion});
  }
  return out;
}

}  // namespace tomowb::gui
