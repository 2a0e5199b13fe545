// CompareView: see the header. The view holds no figures of its own: CompareModel computes them
// (off the GUI thread where they cost), and every change of the model refills the table, the
// verdict and the histogram; the views and profiles follow the pair, the slice and the crosshair.
#include "gui/CompareView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/ExportFiles.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/geometry/GeometryJson.h"
#include "recon/metrics/Region.h"
#include "recon/qa/RunComparability.h"
#include "recon/variant/VariantRegistry.h"
#include "render/ChartView.h"

namespace tomowb::gui {

namespace {

using Which = render::CompareViews::Which;
using Mode = render::CompareViews::Mode;

// The histogram's one series (a chart's series may not share the x axis' title, "A - B").
const QString kHistogramSeries = QStringLiteral("voxels");

constexpr qa::AccuracyClass kClasses[] = {qa::AccuracyClass::Exact,
                                          qa::AccuracyClass::HardwareInterpolation,
                                          qa::AccuracyClass::HalfPrecision};

QString number(double v, int digits = 4) {
  if (std::isnan(v)) return QStringLiteral("—");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  return QString::number(v, 'g', digits);
}

// "1e-04" for a limit: short, and what a user types back.
QString limitText(double v) {
  return QString::number(v, 'g', 3);
}

// Accepts "1e-4", "≤ 1e-4", "<= 0.0001" (with a comma as decimal separator too).
std::optional<double> parseLimit(QString text) {
  text.remove(QChar(0x2264)).remove(QStringLiteral("<=")).remove(QLatin1Char('<'));
  text = text.trimmed().replace(QLatin1Char(','), QLatin1Char('.'));
  bool ok = false;
  const double v = text.toDouble(&ok);
  return ok ? std::optional<double>(v) : std::nullopt;
}

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

CompareView::CompareView(Workspace& workspace, RunController& runs, QWidget* parent)
    : QWidget(parent), workspace_(workspace), runs_(runs) {
  setObjectName(QStringLiteral("compareView"));
  // A page of the window's central stack: its minimum must never widen the window while the
  // slice views are shown (the side docks step aside when it is shown, which makes the room).
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  {
    QSettings settings;
    model_.setTolerances(loadToleranceTable(settings));
  }
  buildUi();
  connect(&model_, &CompareModel::changed, this, &CompareView::onModelChanged);
  connect(&workspace_, &Workspace::volumesChanged, this, &CompareView::rebuildEntries);
  connect(&runs_, &RunController::runFinished, this, &CompareView::onRunFinished);
  connect(&runs_, &RunController::runFailed, this, [this](int id) { onRunEnded(id); });
  connect(&runs_, &RunController::runCancelled, this, &CompareView::onRunEnded);
  connect(&runs_, &RunController::runForgotten, this, [this](int id) {
    inputs_.erase(id);  // its projections need not stay alive for a reference any more
    rebuildEntries();
  });
  rebuildEntries();
  onModelChanged();
}

CompareView::~CompareView() = default;

// --- the widgets --------------------------------------------------------------------------------

void CompareView::buildUi() {
  auto makeCombo = [this](const QString& name, const QString& tip) {
    auto* combo = new QComboBox(this);
    combo->setObjectName(name);
    combo->setToolTip(tip);
    return combo;
  };
  comboA_ = makeCombo(QStringLiteral("compareA"), tr("A: the run (or volume) being checked"));
  comboB_ = makeCombo(QStringLiteral("compareB"),
                      tr("B: the reference (the CPU float64 run, another variant or algorithm)"));
  for (QComboBox* c : {comboA_, comboB_}) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(20);
  }
  auto* swap = new QToolButton(this);
  swap->setText(QStringLiteral("⇄"));
  swap->setToolTip(tr("Swap A and B"));
  goldenButton_ = new QPushButton(tr("Golden reference"), this);
  goldenButton_->setObjectName(QStringLiteral("goldenReferenceButton"));
  exportButton_ = new QPushButton(tr("Export report…"), this);
  exportButton_->setObjectName(QStringLiteral("exportReportButton"));
  exportButton_->setToolTip(
      tr("Save report.md with the metrics and PNGs of A, B, A − B, the profiles and the "
         "histogram into a folder"));
  auto* close = new QPushButton(tr("Back to views"), this);
  close->setToolTip(tr("Leave the compare view (View > Compare runs brings it back)"));

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("A (test):"), this));
  top->addWidget(comboA_, 1);
  top->addWidget(swap);
  top->addWidget(new QLabel(tr("B (reference):"), this));
  top->addWidget(comboB_, 1);
  top->addSpacing(12);
  top->addWidget(goldenButton_);
  top->addWidget(exportButton_);
  top->addWidget(close);

  axisCombo_ = makeCombo(QStringLiteral("compareAxis"), tr("Orientation of every view"));
  for (auto axis : {render::SliceView::Axis::Axial, render::SliceView::Axis::Coronal,
                    render::SliceView::Axis::Sagittal})
    axisCombo_->addItem(render::SliceView::axisName(axis), static_cast<int>(axis));
  modeCombo_ = makeCombo(QStringLiteral("compareMode"),
                         tr("Side by side: A | B | A − B. Flicker: one view alternates A and B. "
                            "Swipe: A left of a divider you drag, B right of it."));
  modeCombo_->addItem(tr("A | B | A − B"), static_cast<int>(Mode::SideBySide));
  modeCombo_->addItem(tr("Flicker A / B"), static_cast<int>(Mode::Flicker));
  modeCombo_->addItem(tr("Swipe A | B"), static_cast<int>(Mode::Swipe));
  flickerSpin_ = new QSpinBox(this);
  flickerSpin_->setObjectName(QStringLiteral("flickerInterval"));
  flickerSpin_->setRange(100, 5000);
  flickerSpin_->setSingleStep(100);
  flickerSpin_->setSuffix(tr(" ms"));
  flickerSpin_->setPrefix(tr("every "));
  flickerSpin_->setValue(render::CompareViews::kDefaultFlickerIntervalMs);
  flickerSpin_->setToolTip(tr("How long A and B each stay on screen"));
  flickerSpin_->setVisible(false);
  windowEdit_ = new QLineEdit(this);
  windowEdit_->setObjectName(QStringLiteral("differenceWindow"));
  windowEdit_->setMaximumWidth(110);
  auto* validator = new QDoubleValidator(0.0, 1e300, 12, windowEdit_);
  validator->setNotation(QDoubleValidator::ScientificNotation);
  validator->setLocale(QLocale::c());
  windowEdit_->setValidator(validator);
  windowEdit_->setToolTip(
      tr("The difference view shows −w..+w: blue below 0, white at 0, red above. Default: the "
         "99.9th percentile of |A − B|. Left-drag in the view widens or narrows it."));
  auto* defaultWindow = new QToolButton(this);
  defaultWindow->setText(tr("Default"));
  defaultWindow->setToolTip(tr("± the 99.9th percentile of |A − B|"));
  profileCombo_ = makeCombo(QStringLiteral("compareProfile"), tr("Where the line profile runs"));
  profileCombo_->addItem(tr("Row through the crosshair"));
  profileCombo_->addItem(tr("Line drawn on a slice (left-drag)"));

  auto* second = new QHBoxLayout;
  second->addWidget(new QLabel(tr("Orientation:"), this));
  second->addWidget(axisCombo_);
  second->addSpacing(8);
  second->addWidget(new QLabel(tr("Mode:"), this));
  second->addWidget(modeCombo_);
  second->addWidget(flickerSpin_);
  second->addSpacing(8);
  second->addWidget(new QLabel(tr("A − B window ±"), this));
  second->addWidget(windowEdit_);
  second->addWidget(defaultWindow);
  second->addSpacing(8);
  second->addWidget(new QLabel(tr("Profile:"), this));
  second->addWidget(profileCombo_);
  second->addStretch(1);

  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("compareProblem"));
  banner_->setWordWrap(true);
  banner_->setStyleSheet(QStringLiteral(
      "QLabel { background: #b3261e; color: white; padding: 6px; font-weight: bold; }"));
  banner_->setVisible(false);

  views_ = new render::CompareViews(this);
  views_->setMinimumHeight(220);

  profileChart_ = new render::ChartView(this);
  profileChart_->setObjectName(QStringLiteral("compareProfileChart"));
  // ASCII titles: VTK's chart font has no minus sign.
  profileChart_->setTitle(tr("Line profile: A and B"));
  profileChart_->setAxisTitles(tr("distance along the line (mm)"), tr("value"));
  profileChart_->addSeries(QStringLiteral("A"));
  profileChart_->addSeries(QStringLiteral("B"));
  profileDifferenceChart_ = new render::ChartView(this);
  profileDifferenceChart_->setObjectName(QStringLiteral("compareProfileDifferenceChart"));
  profileDifferenceChart_->setTitle(tr("Line profile: A - B"));
  profileDifferenceChart_->setAxisTitles(tr("distance along the line (mm)"), tr("A - B"));
  profileDifferenceChart_->setLegendVisible(false);
  histogramChart_ = new render::ChartView(this);
  histogramChart_->setObjectName(QStringLiteral("compareHistogramChart"));
  histogramChart_->setTitle(tr("Histogram of A - B"));
  histogramChart_->setAxisTitles(tr("A - B"), tr("log10(1 + voxels)"));
  histogramChart_->setLegendVisible(false);
  for (render::ChartView* chart : {profileChart_, profileDifferenceChart_, histogramChart_})
    chart->setMinimumSize(160, 150);
  auto* charts = new QSplitter(Qt::Horizontal, this);
  charts->addWidget(profileChart_);
  charts->addWidget(profileDifferenceChart_);
  charts->addWidget(histogramChart_);

  auto* left = new QSplitter(Qt::Vertical, this);
  left->addWidget(views_);
  left->addWidget(charts);
  left->setStretchFactor(0, 5);
  left->setStretchFactor(1, 2);

  // The metrics beside the views.
  auto* right = new QWidget(this);
  verdict_ = new QLabel(right);
  verdict_->setObjectName(QStringLiteral("compareVerdict"));
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  classCombo_ = makeCombo(QStringLiteral("compareClass"),
                          tr("The accuracy class A is judged against: by default the one its "
                             "kernel variant promises"));
  for (qa::AccuracyClass c : kClasses)
    classCombo_->addItem(accuracyClassLabel(c), static_cast<int>(c));
  table_ = new QTableWidget(0, kColumnCount, right);
  table_->setObjectName(QStringLiteral("compareMetrics"));
  table_->setHorizontalHeaderLabels({tr("Figure"), tr("A vs B"), tr("Limit"), tr("Result")});
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(Figure, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(Value, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(Limit, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(Result, QHeaderView::ResizeToContents);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                          QAbstractItemView::AnyKeyPressed);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setWordWrap(false);
  status_ = new QLabel(right);
  status_->setObjectName(QStringLiteral("compareStatus"));
  status_->setWordWrap(true);
  cursor_ = new QLabel(right);
  cursor_->setObjectName(QStringLiteral("compareCursor"));
  cursor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  cursor_->setWordWrap(true);
  cursor_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* hint = new QLabel(
      tr("A − B = test minus reference; NRMSE and max-abs relative are over B's range. "
         "Double-click a limit to edit it (kept for this class until you change it again)."),
      right);
  hint->setWordWrap(true);
  hint->setEnabled(false);
  auto* classRow = new QHBoxLayout;
  classRow->addWidget(new QLabel(tr("Class of A:"), right));
  classRow->addWidget(classCombo_, 1);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(4, 0, 0, 0);
  rightLayout->addWidget(verdict_);
  assumeComparable_ = new QCheckBox(
      tr("Judge anyway: A and B are the same reconstruction on another kernel variant or device"),
      right);
  assumeComparable_->setObjectName(QStringLiteral("compareAssumeComparable"));
  assumeComparable_->setToolTip(
      tr("Nothing recorded says whether A and B differ only in kernel variant or device (a loaded "
         "volume has no run record). Tick this if they do, to judge A against its class."));
  assumeComparable_->setVisible(false);
  connect(assumeComparable_, &QCheckBox::toggled, this, [this] { updateInformative(); });
  rightLayout->addWidget(assumeComparable_);
  rightLayout->addLayout(classRow);
  rightLayout->addWidget(table_, 1);
  rightLayout->addWidget(status_);
  rightLayout->addWidget(cursor_);
  rightLayout->addWidget(hint);
  right->setMinimumWidth(260);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(left);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 4);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({1200, 380});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addLayout(second);
  layout->addWidget(banner_);
  layout->addWidget(splitter, 1);

  connect(comboA_, &QComboBox::activated, this,
          [this](int index) { setPair(comboA_->itemData(index).toInt(), std::max(entryB_, 0)); });
  connect(comboB_, &QComboBox::activated, this,
          [this](int index) { setPair(std::max(entryA_, 0), comboB_->itemData(index).toInt()); });
  connect(swap, &QToolButton::clicked, this, &CompareView::swapPair);
  connect(goldenButton_, &QPushButton::clicked, this, [this] {
    if (entryA_ >= 0) requestGoldenReference(entries_[static_cast<std::size_t>(entryA_)].runId);
  });
  connect(exportButton_, &QPushButton::clicked, this, &CompareView::chooseReportFolder);
  connect(close, &QPushButton::clicked, this, &CompareView::closeRequested);
  connect(axisCombo_, &QComboBox::activated, this, [this](int index) {
    views_->setAxis(static_cast<render::SliceView::Axis>(axisCombo_->itemData(index).toInt()));
    drawnLine_.reset();
    updateProfile();
  });
  connect(modeCombo_, &QComboBox::activated, this,
          [this](int index) { setMode(static_cast<Mode>(modeCombo_->itemData(index).toInt())); });
  connect(flickerSpin_, &QSpinBox::valueChanged, views_,
          &render::CompareViews::setFlickerIntervalMs);
  connect(windowEdit_, &QLineEdit::editingFinished, this, [this] {
    bool ok = false;
    const double w = QLocale::c().toDouble(windowEdit_->text(), &ok);
    if (ok && w > 0) views_->setDifferenceHalfWindow(w);
    windowEdit_->setText(QString::number(views_->differenceHalfWindow(), 'g', 3));
  });
  connect(defaultWindow, &QToolButton::clicked, this, [this] {
    views_->setDifferenceHalfWindow(model_.defaultHalfWindow());
    windowEdit_->setText(QString::number(views_->differenceHalfWindow(), 'g', 3));
  });
  connect(views_, &render::CompareViews::differenceHalfWindowChanged, this,
          [this](double w) { windowEdit_->setText(QString::number(w, 'g', 3)); });
  connect(profileCombo_, &QComboBox::activated, this, [this](int index) {
    views_->setLineTool(index == 1);
    if (index == 0) drawnLine_.reset();
    updateProfile();
  });
  connect(views_, &render::CompareViews::lineDrawn, this,
          [this](const Eigen::Vector3d& from, const Eigen::Vector3d& to) {
            drawnLine_ = render::CompareSliceView::Line{from, to};
            updateProfile();
          });
  connect(views_, &render::CompareViews::crosshairMoved, this, [this] { updateProfile(); });
  connect(views_, &render::CompareViews::sliceChanged, this, [this] { updateProfile(); });
  connect(views_, &render::CompareViews::cursorMoved, this, &CompareView::updateCursor);
  connect(classCombo_, &QComboBox::activated, this, [this](int index) {
    model_.setAccuracyClass(static_cast<qa::AccuracyClass>(classCombo_->itemData(index).toInt()));
  });
  connect(table_, &QTableWidget::itemChanged, this, &CompareView::onLimitEdited);
}

void CompareView::setMode(Mode mode) {
  views_->setMode(mode);
  const QSignalBlocker block(modeCombo_);
  modeCombo_->setCurrentIndex(modeCombo_->findData(static_cast<int>(mode)));
  flickerSpin_->setVisible(mode == Mode::Flicker);
}

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
  views_->setVolumes(ea.volume, eb.volume, nullptr, ea.name, eb.name);
  model_.setPair(
      ea.volume, eb.volume,
      ea.volume->shape() == eb.volume->shape() ? cnrRois(*ea.volume) : std::vector<qa::CnrRoi>{});
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
    const Entry& a = entries_[static_cast<std::size_t>(entryA_)];
    const Entry& b = entries_[static_cast<std::size_t>(entryB_)];
    if (a.volume->shape() == b.volume->shape())
      model_.setPair(a.volume, b.volume, cnrRois(*a.volume));
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

// --- figures ------------------------------------------------------------------------------------

void CompareView::onModelChanged() {
  const std::shared_ptr<const Volume>& difference = model_.difference();
  if (difference && model_.test() == views_->volumeA() && model_.reference() == views_->volumeB() &&
      views_->view(Which::Difference)->volume() != difference) {
    views_->setDifference(difference, model_.defaultHalfWindow());
    windowEdit_->setText(QString::number(views_->differenceHalfWindow(), 'g', 3));
  }
  banner_->setText(model_.problem());
  banner_->setVisible(!model_.problem().isEmpty());
  fillTable();
  updateHistogram();
  updateButtons();
}

void CompareView::setTableRow(int row, const QString& figure, const QString& value,
                              const QString& limit, const QString& result, bool editable) {
  const QString texts[kColumnCount] = {figure, value, limit, result};
  for (int column = 0; column < kColumnCount; ++column) {
    auto* item = new QTableWidgetItem(texts[column]);
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (column == Limit && editable) {
      flags |= Qt::ItemIsEditable;
      item->setToolTip(tr("Double-click to edit the limit of the %1 class")
                           .arg(accuracyClassLabel(model_.accuracyClass())));
    }
    item->setFlags(flags);
    if (column != Figure) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (column == Result && !result.isEmpty()) {
      const bool pass = result == tr("pass");
      item->setForeground(pass ? QColor(30, 140, 60) : QColor(200, 30, 30));
      QFont font = item->font();
      font.setBold(true);
      item->setFont(font);
    }
    table_->setItem(row, column, item);
  }
}

void CompareView::fillTable() {
  filling_ = true;
  const QSignalBlocker block(table_);
  const std::optional<qa::RunComparison>& c = model_.comparison();
  const qa::Tolerance tolerance = model_.tolerances()[model_.accuracyClass()];
  const int cnrRows = c && !c->cnr.empty() ? static_cast<int>(c->cnr.size()) : 1;
  table_->setRowCount(kFirstCnrRow + cnrRows);
  const QString pending = model_.firstFiguresPending() ? tr("computing…") : QString();
  const auto value = [&](double v, int digits = 4) { return c ? number(v, digits) : pending; };
  const bool judged = model_.informative().isEmpty();
  const auto verdictOf = [&](bool ok) {
    return c && judged ? (ok ? tr("pass") : tr("FAIL")) : QString();
  };
  const metrics::ComparisonMetrics m = c ? c->metrics : metrics::ComparisonMetrics{};
  setTableRow(MaxAbs, tr("max |A − B|"), value(m.maxAbsDifference));
  setTableRow(Nrmse, tr("NRMSE"), value(m.nrmse), limitText(tolerance.maxNrmse),
              verdictOf(m.nrmse <= tolerance.maxNrmse), true);
  setTableRow(MaxAbsRelative, tr("max |A − B| / range(B)"), value(c ? c->maxAbsRelative : 0),
              limitText(tolerance.maxAbsRelative),
              verdictOf(c && c->maxAbsRelative <= tolerance.maxAbsRelative), true);
  setTableRow(Psnr, tr("PSNR"), c ? tr("%1 dB").arg(number(m.psnrDb)) : pending);
  QString ssim = pending;
  if (c) ssim = m.ssim ? number(*m.ssim, 6) : (model_.ssimPending() ? tr("computing…") : tr("—"));
  setTableRow(Ssim, tr("SSIM"), ssim);
  setTableRow(Bias, tr("mean bias (A − B)"), value(m.meanDifference));
  setTableRow(Rmse, tr("RMSE"), value(m.rmse));
  if (c && !c->cnr.empty()) {
    for (std::size_t i = 0; i < c->cnr.size(); ++i) {
      const qa::RoiCnr& r = c->cnr[i];
      setTableRow(kFirstCnrRow + static_cast<int>(i),
                  tr("CNR %1").arg(QString::fromStdString(r.name)),
                  tr("A %1 · B %2").arg(number(r.cnrTest, 3), number(r.cnrReference, 3)));
    }
  } else {
    const bool signal = std::any_of(rois_.begin(), rois_.end(), [](const render::SliceRoi& r) {
      return r.role == render::SliceRoi::Signal;
    });
    setTableRow(kFirstCnrRow, tr("CNR"),
                rois_.empty() ? tr("no ROIs")
                : signal      ? tr("no background ROI here")
                              : tr("no signal ROI"));
    table_->item(kFirstCnrRow, Value)
        ->setToolTip(tr("Draw signal and background ROIs on the slice views (Back to views, the "
                        "ROI tools of the view toolbar): each signal ROI gets a CNR row here"));
  }
  // The verdict above the table.
  QString text, colour;
  if (!model_.problem().isEmpty()) {
    text = tr("No comparison");
    colour = QStringLiteral("#777777");
  } else if (const auto v = model_.verdict(); v && v->informative) {
    // No pass / fail between different reconstructions: grey, never the red of a failure.
    const QString why = model_.informative();
    text = tr("<b>Informative</b>: no pass or fail. %1")
               .arg((why.left(1).toUpper() + why.mid(1)).toHtmlEscaped());
    colour = QStringLiteral("#5a6270");
  } else if (const auto v = model_.verdict()) {
    // "pass (exact): NRMSE ..." under a bold PASS: the word once.
    const QString detail = v->text.section(QLatin1Char(' '), 1);
    text = QStringLiteral("<b>%1</b> %2")
               .arg(v->passed ? tr("PASS") : tr("FAIL"), detail.toHtmlEscaped());
    colour = v->passed ? QStringLiteral("#1e7b34") : QStringLiteral("#b3261e");
  } else if (model_.firstFiguresPending()) {
    text = tr("Comparing…");
    colour = QStringLiteral("#777777");
  } else {
    text = tr("Choose A and B");
    colour = QStringLiteral("#777777");
  }
  verdict_->setText(text);
  verdict_->setStyleSheet(
      QStringLiteral("QLabel { background: %1; color: white; padding: 6px; }").arg(colour));
  QStringList notes;
  if (c) {
    notes << tr("%1 voxels, B from %2 to %3")
                 .arg(m.voxelCount)
                 .arg(number(m.referenceMin), number(m.referenceMax));
    if (m.nonFiniteCount > 0) notes << tr("%1 NaN or infinite differences").arg(m.nonFiniteCount);
  }
  if (model_.ssimPending() && c) notes << tr("SSIM is being computed; the rest is final.");
  status_->setText(notes.join(QStringLiteral("\n")));
  filling_ = false;
}

void CompareView::onLimitEdited(QTableWidgetItem* item) {
  if (filling_ || item == nullptr || item->column() != Limit) return;
  const int row = item->row();
  if (row != Nrmse && row != MaxAbsRelative) return;
  const qa::AccuracyClass c = model_.accuracyClass();
  qa::Tolerance t = model_.tolerances()[c];
  const std::optional<double> v = parseLimit(item->text());
  QString error;
  if (!v) {
    error = tr("'%1' is not a number").arg(item->text());
  } else {
    (row == Nrmse ? t.maxNrmse : t.maxAbsRelative) = *v;
    try {
      model_.setTolerance(c, t);
      QSettings settings;
      saveToleranceTable(settings, model_.tolerances());
      emit statusMessage(
          tr("Tolerance of the %1 class: NRMSE <= %2, max-abs relative <= %3")
              .arg(accuracyClassLabel(c), limitText(t.maxNrmse), limitText(t.maxAbsRelative)),
          6000);
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
  }
  if (!error.isEmpty()) {
    emit statusMessage(tr("Limit not changed: %1").arg(error), 8000);
    QMetaObject::invokeMethod(
        this, [this] { fillTable(); }, Qt::QueuedConnection);
  }
}

bool CompareView::editLimit(Row row, const QString& text) {
  QTableWidgetItem* item = table_->item(row, Limit);
  if (item == nullptr || !(item->flags() & Qt::ItemIsEditable)) return false;
  const qa::Tolerance before = model_.tolerances()[model_.accuracyClass()];
  item->setText(text);
  return !(model_.tolerances()[model_.accuracyClass()] == before);
}

QString CompareView::problemText() const {
  return banner_->isVisibleTo(this) ? banner_->text() : QString();
}

QString CompareView::verdictText() const {
  if (const auto v = model_.verdict()) {
    if (v->informative) return v->text;
    return (v->passed ? tr("PASS: ") : tr("FAIL: ")) + v->text;
  }
  return {};
}

QString CompareView::cursorText() const {
  return cursor_->text();
}

void CompareView::updateHistogram() {
  const std::optional<qa::RunComparison>& c = model_.comparison();
  if (!c || c->histogram.counts.empty()) {
    histogramChart_->setSeriesData(kHistogramSeries, {}, {});
    return;
  }
  // Steps: each bin a flat top from its left edge to its right edge.
  const qa::DifferenceHistogram& h = c->histogram;
  const double w = h.binWidth();
  std::vector<double> x, y;
  x.reserve(2 * h.counts.size());
  y.reserve(2 * h.counts.size());
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const double left = -h.halfRange + static_cast<double>(i) * w;
    const double height = std::log10(1.0 + static_cast<double>(h.counts[i]));
    x.push_back(left);
    y.push_back(height);
    x.push_back(left + w);
    y.push_back(height);
  }
  histogramChart_->setSeriesData(kHistogramSeries, x, y);
}

std::optional<render::CompareSliceView::Line> CompareView::profileLine() const {
  if (profileCombo_->currentIndex() == 1) return drawnLine_;
  const std::shared_ptr<const Volume>& a = views_->volumeA();
  if (!a) return std::nullopt;
  // The row through the crosshair: along the screen's x, at the crosshair's row (on a voxel
  // centre, so the samples are the voxels themselves).
  const render::CompareSliceView* v = views_->view(Which::A);
  const int right = v->rightAxis(), up = v->upAxis();
  const std::int64_t n[3] = {a->nx(), a->ny(), a->nz()};
  const Eigen::Vector3d crosshair = views_->crosshair();
  const double row =
      std::clamp<double>(std::round((crosshair[up] - a->originMm()[up]) / a->voxelSizeMm()[up]),
                         0.0, static_cast<double>(n[up] - 1));
  Eigen::Vector3d from = crosshair, to = crosshair;
  from[up] = to[up] = a->originMm()[up] + row * a->voxelSizeMm()[up];
  from[right] = a->originMm()[right];
  to[right] = a->originMm()[right] + (n[right] - 1) * a->voxelSizeMm()[right];
  return render::CompareSliceView::Line{from, to};
}

void CompareView::updateProfile() {
  const std::shared_ptr<const Volume>& a = views_->volumeA();
  const std::shared_ptr<const Volume>& b = views_->volumeB();
  const std::optional<render::CompareSliceView::Line> line = profileLine();
  views_->setProfileLine(line);
  if (!a || !b || a->shape() != b->shape() || !line) {
    for (const char* name : {"A", "B"}) profileChart_->setSeriesData(name, {}, {});
    profileDifferenceChart_->setSeriesData(QStringLiteral("A - B"), {}, {});
    return;
  }
  // On the slice shown.
  const render::CompareSliceView* v = views_->view(Which::A);
  Eigen::Vector3d from = line->first, to = line->second;
  from[v->axisIndex()] = to[v->axisIndex()] = v->slicePositionMm();
  const LineProfile p = lineProfile(*a, *b, from, to);
  std::vector<double> x, ya, yb, xd, yd;
  for (std::size_t i = 0; i < p.distanceMm.size(); ++i) {
    if (std::isfinite(p.a[i]) && std::isfinite(p.b[i])) {
      x.push_back(p.distanceMm[i]);
      ya.push_back(p.a[i]);
      yb.push_back(p.b[i]);
      yd.push_back(p.difference[i]);
    }
  }
  xd = x;
  profileChart_->setSeriesData(QStringLiteral("A"), x, ya);
  profileChart_->setSeriesData(QStringLiteral("B"), x, yb);
  profileDifferenceChart_->setSeriesData(QStringLiteral("A - B"), xd, yd);
}

void CompareView::updateCursor(const Eigen::Vector3d& p) {
  const render::CompareSliceView* a = views_->view(Which::A);
  const render::CompareSliceView* b = views_->view(Which::B);
  const render::CompareSliceView* d = views_->view(Which::Difference);
  const float va = a->valueAt(p), vb = b->valueAt(p), vd = d->valueAt(p);
  cursor_->setText(tr("(%1, %2, %3) mm\nA %4   B %5\nA − B %6")
                       .arg(p.x(), 0, 'f', 2)
                       .arg(p.y(), 0, 'f', 2)
                       .arg(p.z(), 0, 'f', 2)
                       .arg(number(va, 6), number(vb, 6), number(vd, 3)));
}

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
