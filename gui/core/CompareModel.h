// CompareModel: what the compare view (issue #9, docs/gui.md "Compare runs") computes, without a
// display. Two volumes of the same shape, A (the test) and B (the reference), give the core's
// RunComparison (recon/qa/RunComparison.h: max-abs, NRMSE, PSNR, SSIM, mean bias, max-abs
// relative, difference histogram, CNR of the saved ROIs), the difference volume A - B with its
// default window (+- the 99.9th percentile of |A - B|), line profiles through A, B and A - B, and
// the pass / fail verdict against the tolerance of A's accuracy class, re-judged at once when the
// user edits a tolerance (the edited table is kept with QSettings as JSON). The figures come in two
// steps: everything but SSIM first (on the GUI thread below kBackgroundVoxels voxels, on the
// model's worker thread above), then SSIM, which costs more than the rest together, always on the
// worker. Also here: which accuracy class a run promises, the golden-reference run (the same input
// and parameters on the CPU float64 path) and the text of the exported report.
#pragma once

#include <Eigen/Core>
#include <QObject>
#include <QString>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "gui/core/RunController.h"
#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/qa/RunComparison.h"
#include "recon/variant/AccuracyClass.h"

class QSettings;

namespace tomowb::gui {

// The CPU float64 paths a golden reference runs on are the registry's references
// (VariantRegistry::referenceFor), as for the sweeps.

// --- accuracy classes ---------------------------------------------------------------------------

// The class a kernel variant promises (KernelVariant::accuracyClass); Exact for a name the
// registry does not know.
qa::AccuracyClass accuracyClassOfVariant(const std::string& name);
// The class of a run from its parameters: its variant's, or for a projector pair the looser of
// the two; Exact without a variant (a loaded volume, a test run).
qa::AccuracyClass accuracyClassOfRun(const nlohmann::json& parameters);
// "exact", "hardware interpolation", "half precision": for tables and menus.
QString accuracyClassLabel(qa::AccuracyClass c);
// True when the run used the CPU float64 reference path (it is B by default in a pair).
bool isFloat64ReferenceRun(const nlohmann::json& parameters);

// --- tolerances kept for the session ------------------------------------------------------------

// Settings group "compare", key "tolerances": the table as JSON (ToleranceTable::toJson). A missing
// or unreadable entry gives the defaults.
qa::ToleranceTable loadToleranceTable(QSettings& settings);
void saveToleranceTable(QSettings& settings, const qa::ToleranceTable& table);

// --- pass / fail --------------------------------------------------------------------------------

struct CompareVerdict {
  bool passed = false;
  QString text;  // "pass (exact): NRMSE 3.1e-05 <= 1e-04, max-abs/range 2e-04 <= 1e-03"
  // No pass / fail: the runs are not the same reconstruction on another variant or device, or
  // nothing says whether they are (text: "informative (different algorithms: WBP and SIRT)").
  bool informative = false;
};
// The core's rule (qa::judge) with another tolerance: every limit holds and no difference is NaN
// or infinite; the text is the core's verdict.
CompareVerdict judgeComparison(const qa::RunComparison& comparison, qa::AccuracyClass c,
                               const qa::Tolerance& tolerance);

// --- difference, window, profiles ---------------------------------------------------------------

// A - B voxel by voxel, on A's grid. The shapes must match (requireSameShape's ParameterError).
std::shared_ptr<Volume> differenceVolume(const Volume& a, const Volume& b);
// The value below which `percent` % of the finite |v| lie (an evenly strided sample of at most
// 2^22 voxels for larger volumes); 0 for a volume without a finite voxel.
double absolutePercentile(const Volume& volume, double percent);
// The difference view's default half-window: the 99.9th percentile of |A - B|, else (a few
// voxels differ) the largest |A - B|, else 1e-6 for identical volumes.
double defaultDifferenceHalfWindow(const Volume& difference);

// Trilinear samples of a volume at `count` (>= 2) evenly spaced points from `from` to `to` (world
// mm, ends included); NaN where a point lies outside the voxel centres' box.
std::vector<double> sampleLine(const Volume& volume, const Eigen::Vector3d& from,
                               const Eigen::Vector3d& to, int count);

struct LineProfile {
  std::vector<double> distanceMm;  // from the start of the line
  std::vector<double> a, b, difference;
};
// A, B and A - B along the line: one sample per smallest voxel edge (at least 2, at most 4096).
LineProfile lineProfile(const Volume& a, const Volume& b, const Eigen::Vector3d& from,
                        const Eigen::Vector3d& to);

// --- golden reference ---------------------------------------------------------------------------

// Why `run` cannot get a golden reference ("no float64 path for ..."), or empty when it can.
QString goldenReferenceUnavailable(const RunInfo& run);
// The run of the same input and parameters on the CPU float64 path: FDK and WBP with
// fdk.bp.cpu-f64, SIRT, OS-SIRT and SART with et.fp.cpu + et.bp.cpu-matched. `projections` and
// `geometry` are what the run used (geometry may be null: the projections' own); `warmStart` is
// the warm-start run's result when the run had one. Its parameters keep the run's "input" and
// "rois" and name the run in "goldenReferenceFor". Throws ParameterError when
// goldenReferenceUnavailable says why not.
RunSpec makeGoldenReferenceRun(const RunInfo& run,
                               std::shared_ptr<const ProjectionStack> projections,
                               const Geometry* geometry,
                               std::shared_ptr<const Volume> warmStart = nullptr);

// --- the comparison of a pair -------------------------------------------------------------------

class CompareModel : public QObject {
  Q_OBJECT

 public:
  // From this many voxels on, compareRuns runs on the worker thread (the "big volumes").
  static constexpr std::int64_t kBackgroundVoxels = 8'000'000;
  static constexpr int kHistogramBins = 101;

  explicit CompareModel(QObject* parent = nullptr);
  ~CompareModel() override;  // waits for the figure being computed
  CompareModel(const CompareModel&) = delete;
  CompareModel& operator=(const CompareModel&) = delete;

  // From how many voxels on the first figures are computed off the GUI thread (tests lower it).
  void setBackgroundVoxels(std::int64_t voxels) { backgroundVoxels_ = voxels; }

  // Compares `test` (A) with `reference` (B). Shapes that differ give problem() and no figures.
  // `rois` are the CNR regions (bound to the volumes' grid; empty: no CNR rows).
  void setPair(std::shared_ptr<const Volume> test, std::shared_ptr<const Volume> reference,
               std::vector<qa::CnrRoi> rois = {});
  void clear();

  const std::shared_ptr<const Volume>& test() const { return test_; }
  const std::shared_ptr<const Volume>& reference() const { return reference_; }
  // A - B once the first figures are in; null before and for a problem.
  const std::shared_ptr<const Volume>& difference() const { return difference_; }
  double defaultHalfWindow() const { return defaultHalfWindow_; }
  // Why there are no figures: "A is 64x64x64 voxels, B 32x32x32: ..." (empty when fine).
  const QString& problem() const { return problem_; }
  // The figures so far (SSIM empty until it arrives).
  const std::optional<qa::RunComparison>& comparison() const { return comparison_; }
  bool firstFiguresPending() const { return pendingFast_; }
  bool ssimPending() const { return pendingSsim_; }
  bool busy() const { return pendingFast_ || pendingSsim_; }

  // The class the verdict judges A against (by default the caller sets A's run's class).
  void setAccuracyClass(qa::AccuracyClass c);
  qa::AccuracyClass accuracyClass() const { return class_; }
  const qa::ToleranceTable& tolerances() const { return tolerances_; }
  // Replaces one class's limits (ParameterError for a limit <= 0 or not finite) and re-judges.
  void setTolerance(qa::AccuracyClass c, const qa::Tolerance& tolerance);
  void setTolerances(const qa::ToleranceTable& table);
  // Why no class applies to the pair (qa::informativeReason: "different algorithms: WBP and
  // SIRT", "cannot tell whether the runs are comparable: ..."); empty: A's class judges it.
  void setInformative(const QString& why);
  const QString& informative() const { return informative_; }
  // Empty until the first figures are in; informative when setInformative gave a reason.
  std::optional<CompareVerdict> verdict() const;

  // Processes events until nothing is pending or the timeout passes (tests, the report export).
  bool waitUntilDone(int timeoutMs);

 signals:
  // New figures (the first ones, then SSIM), a new verdict, a problem, or a cleared pair.
  void changed();

 private:
  struct Job {
    std::uint64_t generation = 0;
    std::shared_ptr<const Volume> test, reference;
    qa::CompareSpec spec;
    bool firstFigures = true;  // false: SSIM only
  };
  struct Result {
    std::uint64_t generation = 0;
    bool firstFigures = true;
    std::optional<qa::RunComparison> comparison;
    std::shared_ptr<const Volume> difference;
    double halfWindow = 0;
    std::optional<double> ssim;
    QString error;
  };
  static Result compute(const Job& job);
  void post(Job job);
  void workerLoop();
  void accept(const Result& result);

  std::shared_ptr<const Volume> test_, reference_, difference_;
  std::vector<qa::CnrRoi> rois_;
  std::optional<qa::RunComparison> comparison_;
  double defaultHalfWindow_ = 1e-6;
  QString problem_;
  bool pendingFast_ = false, pendingSsim_ = false;
  qa::AccuracyClass class_ = qa::AccuracyClass::Exact;
  QString informative_;
  qa::ToleranceTable tolerances_;
  std::int64_t backgroundVoxels_ = kBackgroundVoxels;
  std::uint64_t generation_ = 0;
  std::atomic<std::uint64_t> latestGeneration_{0};  // generation_, for the worker

  // One worker thread; a newer job replaces one not yet started (older results are dropped).
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Job> queued_;
  bool stop_ = false;
  std::thread worker_;
};

// --- the exported report ------------------------------------------------------------------------

struct CompareReportInfo {
  QString testName, referenceName;        // "run 3: FDK 48x48x48 fdk.bp.cpu"
  QString testDetails, referenceDetails;  // variant, algorithm, device (may be empty)
  QString viewText;  // "axial slice 24 of 48 (z = 0.00 mm); A and B at W 0.02 L 0.01, ..."
  // (file name, caption) of each picture in the folder, in order.
  std::vector<std::pair<QString, QString>> pictures;
};
// report.md: the pair, the metrics table with the limits and the verdict, CNR per ROI, pictures.
// A non-empty `informative` (why no class applies) replaces pass / fail with "informative".
QString compareReportMarkdown(const CompareReportInfo& info, const qa::RunComparison& comparison,
                              qa::AccuracyClass c, const qa::Tolerance& tolerance,
                              const QString& informative = {});

}  // namespace tomowb::gui
