// CompareView: see the header. The view holds no figures of its own: CompareModel computes them
// (off the GUI thread where they cost), and every change of the model refills the table, the
// verdict and the histogram; the views and profiles follow the pair, the slice and the crosshair.
// This file builds the widgets; the pair is chosen in CompareViewPair.cpp, the figures shown in
// CompareViewFigures.cpp, the golden reference run in CompareViewGoldenReference.cpp and the
// report written in CompareViewReport.cpp.
#include "gui/CompareView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/CompareViewInternal.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "render/ChartView.h"

namespace tomowb::gui {

namespace {

using detail::Mode;

constexpr qa::AccuracyClass kClasses[] = {qa::AccuracyClass::Exact,
                                          qa::AccuracyClass::HardwareInterpolation,
                                          qa::AccuracyClass::HalfPrecision};

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
  // Own contrast per pane: on by itself when A's and B's value ranges differ strongly.
  auto* ownContrast = new QCheckBox(tr("Own contrast per pane"), this);
  ownContrast->setObjectName(QStringLiteral("compareOwnContrast"));
  ownContrast->setToolTip(
      tr("A and B each in their own 0.1–99.9 % window (a drag changes one pane); off: one "
         "window for both, A's"));
  second->addSpacing(8);
  second->addWidget(ownContrast);
  second->addStretch(1);

  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("compareProblem"));
  banner_->setWordWrap(true);
  banner_->setStyleSheet(QStringLiteral(
      "QLabel { background: #b3261e; color: white; padding: 6px; font-weight: bold; }"));
  banner_->setVisible(false);

  views_ = new render::CompareViews(this);
  views_->setMinimumHeight(220);
  connect(ownContrast, &QCheckBox::toggled, views_, &render::CompareViews::setOwnContrast);
  connect(views_, &render::CompareViews::ownContrastChanged, ownContrast, [ownContrast](bool on) {
    const QSignalBlocker block(ownContrast);
    ownContrast->setChecked(on);
  });

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

}  // namespace tomowb::gui
