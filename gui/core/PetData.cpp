// PetData: see the header.
#include "gui/core/PetData.h"

#include <QDateTime>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <span>

#include "recon/core/Error.h"
#include "recon/pet/PetPipeline.h"

namespace tomowb::gui {

namespace {

// Events read per chunk: 12 MiB, a progress step and a cancel check each.
constexpr std::size_t kReadChunkEvents = std::size_t{1} << 20;

QString fileName(const QString& path) {
  return QFileInfo(path).fileName();
}

// The total activity (Bq) of a map in Bq/mL.
double totalActivityBq(const Volume& activityBqPerMl) {
  const double voxelMl = activityBqPerMl.voxelSizeMm().prod() / 1000.0;
  double sum = 0;
  for (const float v : activityBqPerMl.voxels()) sum += double(v);
  return sum * voxelMl;
}

}  // namespace

void PetSimulationRequest::validate() const {
  if (prompts < 1 || prompts > kMaxSimulatedPrompts)
    throw ParameterError("prompts", "must be from 1 to " + std::to_string(kMaxSimulatedPrompts) +
                                        ", got " + std::to_string(prompts));
  if (!(randomsFraction >= 0 && randomsFraction <= 0.95))
    throw ParameterError("randomsFraction", "must be in [0, 0.95]");
  if (!(voxelMm >= 0.5 && voxelMm <= 50))
    throw ParameterError("voxelMm", "must be from 0.5 to 50 mm");
  if (size < 0 || size > 1024) throw ParameterError("size", "must be from 0 to 1024 voxels");
  if (slices < 0 || slices > 1024) throw ParameterError("slices", "must be from 0 to 1024 voxels");
}

VolumeGrid petSimulationGrid(const pet::ScannerModel& scanner,
                             const PetSimulationRequest& request) {
  VolumeGrid grid = pet::defaultPetGrid(scanner, request.voxelMm);
  if (request.size > 0) grid.shape.nx = grid.shape.ny = request.size;
  if (request.slices > 0) grid.shape.nz = request.slices;
  return VolumeGrid::centred(grid.shape, grid.voxelSizeMm);
}

PetDataSet simulatePetScan(const PetSimulationRequest& request, JobContext& context) {
  request.validate();
  const pet::ScannerModel scanner = pet::loadScanner(request.scanner);
  auto phantom = std::make_shared<pet::PetPhantom>(request.phantom);
  const VolumeGrid grid = petSimulationGrid(scanner, request);
  context.reportProgress("phantom", 0.0);
  auto activity = std::make_shared<Volume>(phantom->activity(grid, &context));
  // The attenuation map covers the whole water cylinder along z (photons of the slab's decays
  // cross water beyond the image's slices), on the image's transverse lattice.
  VolumeGrid muGrid = grid;
  const double cylinderSlices =
      std::ceil((request.phantom.cylinderLengthMm + 20.0) / grid.voxelSizeMm.z());
  muGrid.shape.nz = std::max<std::int64_t>(grid.shape.nz, std::int64_t(cylinderSlices));
  muGrid = VolumeGrid::centred(muGrid.shape, muGrid.voxelSizeMm);
  auto mu = std::make_shared<Volume>(phantom->attenuation(muGrid, &context));
  context.throwIfCancelled();

  pet::ListModeSimulationParams params;
  params.seed = request.seed;
  params.acquisitionSeconds = 1.0;
  params.requestedPrompts = request.prompts;
  params.randomsFraction = request.randomsFraction;
  params.delayedWindow = request.randomsFraction > 0;
  pet::SimulatedListMode simulated = pet::simulateListMode(
      scanner, *activity, request.attenuation ? mu.get() : nullptr, params, context);
  // The simulator drew decays until the prompts were there: the activity they stand for over
  // one second is report.activityBq. The acquisition time at the phantom's own activity makes
  // an image in Bq/mL read the phantom's Bq/mL.
  const double mapActivity = totalActivityBq(*activity);
  pet::ListModeSimulationReport report = simulated.report;
  if (mapActivity > 0 && report.activityBq > 0) {
    const double seconds = report.activityBq / mapActivity;
    params.acquisitionSeconds = seconds;
    report.expectedDecays *= 1.0 / seconds;
    report.activityBq = mapActivity;
  }
  pet::ListModeHeader headerTemplate;
  headerTemplate.isotope = request.isotope;
  // The scan starts now (and the phantom was filled at that moment: no decay before it).
  headerTemplate.scanStart =
      QDateTime::currentDateTime().toString(Qt::ISODate).left(19).toStdString();
  headerTemplate.source =
      "tomowb window: PET phantom simulated (seed " + std::to_string(request.seed) + ")";
  PetDataSet data;
  data.header = pet::simulatedListModeHeader(scanner, params, report, headerTemplate);
  data.events =
      std::make_shared<const std::vector<pet::ListModeEvent>>(std::move(simulated.events));
  data.phantom = std::move(phantom);
  data.activity = std::move(activity);
  // The map is the truth of the attenuation the photons met: none when they met none.
  if (request.attenuation) data.attenuation = std::move(mu);
  data.grid = grid;
  data.simulation = report;
  data.name = QStringLiteral("PET phantom · %1 · %2 prompts")
                  .arg(QString::fromStdString(scanner.name), countText(report.prompts()));
  context.reportProgress("simulate list mode", 1.0);
  return data;
}

PetDataSet readPetListMode(const QString& path, JobContext& context) {
  try {
    pet::ListModeReader reader(path.toStdString());
    PetDataSet data;
    data.header = reader.header();
    data.sourcePath = path;
    data.name = fileName(path);
    auto events = std::make_shared<std::vector<pet::ListModeEvent>>();
    const auto total = static_cast<std::size_t>(reader.header().eventCount);
    events->resize(total);
    std::size_t read = 0;
    while (read < total) {
      context.throwIfCancelled();
      const std::size_t want = std::min(kReadChunkEvents, total - read);
      const std::size_t got =
          reader.readChunk(std::span<pet::ListModeEvent>(events->data() + read, want));
      if (got == 0) break;
      read += got;
      context.reportProgress("read list mode",
                             double(read) / double(std::max<std::size_t>(1, total)));
    }
    // (The reader checks the header's counts against the records with the last chunk.)
    if (data.header.promptCount == 0)
      throw FormatError(path.toStdString(), "events", "the file holds no prompt");
    data.events = std::move(events);
    data.grid = pet::defaultPetGrid(data.header.scanner);
    if (data.header.acquisitionSeconds <= 0)
      data.warnings << QObject::tr(
          "The header gives no acquisition time: images in Bq/mL assume one second.");
    return data;
  } catch (const Cancelled&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(fileName(path).toStdString() +
                ": not enough memory to hold its events (12 bytes per event)");
  } catch (const std::exception& e) {
    throw Error(petLoadErrorMessage(path, e).toStdString());
  }
}

bool isListModePath(const QString& path) {
  const QFileInfo info(path);
  if (!info.isFile()) return false;
  if (info.suffix().compare(QStringLiteral("lm"), Qt::CaseInsensitive) == 0) return true;
  std::ifstream in(path.toStdString(), std::ios::binary);
  char magic[sizeof pet::kListModeMagic] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == std::streamsize(sizeof magic) &&
         std::memcmp(magic, pet::kListModeMagic, sizeof magic) == 0;
}

QString petLoadErrorMessage(const QString& path, const std::exception& error) {
  const QString name = fileName(path);
  const QString detail = QString::fromStdString(error.what());
  QString words;
  if (dynamic_cast<const IoError*>(&error) != nullptr)
    words = QObject::tr("%1 cannot be opened: it is missing, or you may not read it.").arg(name);
  else if (detail.contains(QStringLiteral("magic")) || detail.contains(QStringLiteral("version")))
    words = QObject::tr(
                "%1 is not a Tomo Workbench list-mode file (or one of a newer version): export "
                "list mode from the scanner's software in the format of docs/pet.md.")
                .arg(name);
  else if (detail.contains(QStringLiteral("events[")))
    words = QObject::tr(
                "%1 holds an event this scanner cannot have (a crystal, ring or time out of "
                "range): the file is damaged, or its header describes another scanner.")
                .arg(name);
  else if (detail.contains(QStringLiteral("length")) || detail.contains(QStringLiteral("bytes")))
    words = QObject::tr(
                "%1 is incomplete: it holds fewer events than its header says (was the "
                "copy cut short?).")
                .arg(name);
  else
    words = QObject::tr(
                "%1 cannot be opened as PET list mode: its header or its events are not "
                "what the format allows.")
                .arg(name);
  return words + QObject::tr("\n\nDetails: %1").arg(detail);
}

QString countText(std::int64_t count) {
  if (count >= 1'000'000) return QStringLiteral("%1 M").arg(double(count) / 1e6, 0, 'f', 2);
  if (count >= 10'000) return QStringLiteral("%1 k").arg(double(count) / 1e3, 0, 'f', 1);
  return QString::number(count);
}

}  // namespace tomowb::gui
