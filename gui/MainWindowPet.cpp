// MainWindow's TOF-PET side (issue #20, point 5): File > Simulate PET scan…, File > Open
// list-mode…, the PET demo; the PET data dock (left, beside the geometry, which steps aside with
// the consistency check and the projection browser while PET data are open: they are about CT
// and ET projections), the algorithm dock's DIRECT page (in place of the catalogue's page), and
// the contrast-recovery dock (right, raised when a DIRECT run starts); DIRECT runs on the run
// controller like every run (progress, Cancel, live iterates in Bq/mL with the 0.1-99.9 %
// percentile window of each iterate and of the result).
#include <QAction>
#include <QDockWidget>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStatusBar>
#include <algorithm>
#include <exception>

#include "gui/AlgorithmPanel.h"
#include "gui/DataPanel.h"
#include "gui/MainWindow.h"
#include "gui/PetAlgorithmPanel.h"
#include "gui/PetDataPanel.h"
#include "gui/PetQualityPanel.h"
#include "gui/PetSimulateDialog.h"
#include "gui/ViewArea.h"
#include "gui/core/PetData.h"
#include "gui/core/PetRun.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "render/OrthoViews.h"

namespace tomowb::gui {

namespace {

// The page of a stacked widget shown takes its own size; the hidden one asks for none, so the
// dock's scroll area fits the page shown.
void showPage(QStackedWidget* pages, QWidget* page) {
  for (int i = 0; i < pages->count(); ++i) {
    QWidget* w = pages->widget(i);
    w->setSizePolicy(w == page ? QSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred)
                               : QSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored));
  }
  pages->setCurrentWidget(page);
  pages->adjustSize();
}

}  // namespace

PetSimulationRequest MainWindow::petDemoRequest() {
  PetSimulationRequest r;
  r.scanner = "penn-labr3";
  r.phantom.coldSpheres = true;
  r.prompts = 2'000'000;
  // No attenuation: its photon tracing makes the simulation 30 times slower (3 s here, 100 s
  // with it on two cores); File > Simulate PET scan… offers it.
  r.attenuation = false;
  r.voxelMm = 4.0;
  r.size = 100;   // 400 mm: the 350 mm cylinder
  r.slices = 17;  // 68 mm about the spheres' plane, one slice through it
  return r;
}

void MainWindow::createPetPanels() {
  petDataPanel_ = new PetDataPanel(*workspace_, this);
  petAlgorithmPanel_ = new PetAlgorithmPanel(*workspace_, this);
  petQualityPanel_ = new PetQualityPanel(*runs_, this);
  algorithmPages_ = new QStackedWidget(this);
  algorithmPages_->setObjectName(QStringLiteral("algorithmPages"));
  algorithmPages_->addWidget(algorithmPanel_);
  algorithmPages_->addWidget(petAlgorithmPanel_);
  showPage(algorithmPages_, algorithmPanel_);
  connect(petAlgorithmPanel_, &PetAlgorithmPanel::runRequested, this, [this] { startRun(); });
  connect(workspace_.get(), &Workspace::petDataChanged, this, &MainWindow::onPetDataChanged);
}

void MainWindow::createPetDocks() {
  petDataDock_ =
      addDock(petDataPanel_, tr("PET data"), QStringLiteral("petDataDock"), Qt::LeftDockWidgetArea);
  petQualityDock_ = addDock(petQualityPanel_, tr("Contrast recovery"),
                            QStringLiteral("petQualityDock"), Qt::RightDockWidgetArea);
  tabifyDockWidget(geometryDock_, petDataDock_);
  if (auto* convergence = findChild<QDockWidget*>(QStringLiteral("convergenceDock")))
    tabifyDockWidget(convergence, petQualityDock_);
  geometryDock_->raise();
  if (auto* throughput = findChild<QDockWidget*>(QStringLiteral("throughputDock")))
    throughput->raise();
  // Until PET data are open (View menu shows them on demand).
  petDataDock_->hide();
  petQualityDock_->hide();
}

void MainWindow::createPetActions() {
  simulatePetAction_ = new QAction(tr("Si&mulate PET scan…"), this);
  simulatePetAction_->setObjectName(QStringLiteral("simulatePetAction"));
  simulatePetAction_->setStatusTip(
      tr("A TOF-PET list-mode scan of the PET phantom (hot and cold spheres), simulated now"));
  connect(simulatePetAction_, &QAction::triggered, this, &MainWindow::showSimulatePetDialog);
  openListModeAction_ = new QAction(tr("Open &list-mode…"), this);
  openListModeAction_->setObjectName(QStringLiteral("openListModeAction"));
  openListModeAction_->setStatusTip(tr("Open a TOF-PET list-mode file (*.lm, docs/pet.md)"));
  connect(openListModeAction_, &QAction::triggered, this,
          [this] { dataPanel_->showOpenListModeDialog(); });
  petDemoAction_ = new QAction(tr("Open demo: TOF-&PET phantom"), this);
  petDemoAction_->setObjectName(QStringLiteral("petDemoAction"));
  petDemoAction_->setStatusTip(
      tr("Simulates 2 million prompts of the PET phantom on the LaBr3 scanner (penn-labr3; "
         "without attenuation, for speed); the algorithm panel offers DIRECT for it"));
  connect(petDemoAction_, &QAction::triggered, this, &MainWindow::openPetDemo);
}

void MainWindow::showSimulatePetDialog() {
  auto* dialog = new PetSimulateDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setRequest(petDemoRequest());
  connect(dialog, &QDialog::accepted, this, [this, dialog] { simulatePet(dialog->request()); });
  dialog->open();
}

void MainWindow::simulatePet(const PetSimulationRequest& request) {
  dataPanel_->simulatePet(request);
  statusBar()->showMessage(tr("Simulating a PET scan (%1 prompts): Cancel in the Data panel")
                               .arg(countText(request.prompts)),
                           8000);
}

void MainWindow::openPetDemo() {
  simulatePet(petDemoRequest());
}

void MainWindow::onPetDataChanged() {
  const bool pet = workspace_->petData() != nullptr;
  showPage(algorithmPages_, pet ? static_cast<QWidget*>(petAlgorithmPanel_)
                                : static_cast<QWidget*>(algorithmPanel_));
  QDockWidget* ctDocks[] = {geometryDock_,
                            findChild<QDockWidget*>(QStringLiteral("consistencyDock")),
                            findChild<QDockWidget*>(QStringLiteral("projectionsDock"))};
  if (pet) {
    // The CT/ET docks step aside (what was open comes back with projections).
    if (hiddenForPet_.isEmpty())
      for (QDockWidget* dock : ctDocks)
        if (dock != nullptr && dock->toggleViewAction()->isChecked()) {
          hiddenForPet_ << dock;
          dock->hide();
        }
    petDataDock_->show();
    petDataDock_->raise();
    algorithmDock_->show();
    algorithmDock_->raise();
  } else {
    petDataDock_->hide();
    for (const QPointer<QDockWidget>& dock : hiddenForPet_)
      if (dock) dock->show();
    if (!hiddenForPet_.isEmpty() && geometryDock_ != nullptr) geometryDock_->raise();
    hiddenForPet_.clear();
  }
  showWelcomeIfEmpty();
  updateRunActions();
}

int MainWindow::startPetRun() {
  QString why;
  if (!petAlgorithmPanel_->validate(&why)) {
    statusBar()->showMessage(tr("Cannot run: %1").arg(why), 8000);
    if (isVisible() && startup_.screenshotDir.isEmpty())
      QMessageBox::information(this, tr("Cannot run"), why);
    return -1;
  }
  try {
    PetRunSettings settings = petAlgorithmPanel_->settings();
    settings.cpuThreads = algorithmPanel_->threadCount();
    RunSpec spec = makePetRun(workspace_->petData(), settings);
    const int id = runs_->enqueue(std::move(spec));
    workspace_->noteRunDataSet(id);
    statusBar()->showMessage(
        runs_->runningId() == id ? tr("Run %1 started").arg(id) : tr("Run %1 queued").arg(id),
        4000);
    return id;
  } catch (const std::exception& e) {
    QMessageBox::warning(this, tr("Cannot run"), QString::fromStdString(e.what()));
    return -1;
  }
}

void MainWindow::showPetTruthWindow() {
  const NamedVolume* v = workspace_->currentVolume();
  const auto& data = workspace_->petData();
  if (v == nullptr || !data || !data->activity || v->volume != data->activity) return;
  float peak = 0;
  for (const float value : data->activity->voxels()) peak = std::max(peak, value);
  if (peak > 0) viewArea_->orthoViews().setWindowLevel(double(peak), 0.5 * double(peak));
}

void MainWindow::onPetPreview() {
  // Each iterate gets the window of its own 0.1-99.9 % percentile: the spheres sharpen and the
  // peak grows from one iteration to the next.
  viewArea_->applyPreset(0);
}

}  // namespace tomowb::gui
