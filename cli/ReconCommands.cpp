// `tomowb-cli recon <id>`: one subcommand per algorithm of the catalogue (recon/catalog), made from
// its descriptor: the input and grid options of its grid policy (ReconInputs.h), its parameters
// and projector roles as options (AlgorithmOptions.h), --mask/--init/--reference/--weights for the
// algorithms that take them, --residuals for iterative ones, --telemetry FILE. The descriptor
// validates the parameters and makes the job; this file only reads, runs, writes (all outputs or
// none) and reports.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "AlgorithmOptions.h"
#include "CliSupport.h"
#include "Commands.h"
#include "ReconInputs.h"
#include "RunRecords.h"
#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"
#include "recon/fdk/FdkMemoryEstimate.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/Hdf5Volume.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/VolumeFiles.h"
#include "recon/io/WeightsFile.h"
#ifdef TOMOWB_HAVE_MPI
#include "recon/mpi/MpiCommunicator.h"
#endif
#include "recon/scale/ProjectionRowSource.h"
#include "recon/scale/SlabRun.h"

namespace tomowb::cli {
namespace {

void writeResidualCsv(const std::string& path, const std::vector<IterationRecord>& iterations) {
  std::string text = "iteration,relative_residual,residual_norm,weighted_residual_norm,seconds\n";
  char line[200];
  for (const IterationRecord& r : iterations) {
    std::snprintf(line, sizeof line, "%d,%.9g,%.9g,%.9g,%.6f\n", r.iteration, r.relativeResidual,
                  r.residualNorm, r.weightedResidualNorm, r.seconds);
    text += line;
  }
  io::AtomicFileWriter out(path);
  out.write(text);
  out.commit();
}

// Ranks that share this machine share its cores: each takes its part of them for OpenMP, unless
// OMP_NUM_THREADS says otherwise (4 ranks of 2 threads each on 2 cores ran at 0.37 of the
// one-rank time per slab; bench/results/2026-11-27-scale-fdk-ranks-cpu-before-core-sharing.md).
void shareCoresWithLocalRanks() {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read before any thread starts
  if (std::getenv("OMP_NUM_THREADS") != nullptr) return;
  for (const char* name :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
    if (value == nullptr) continue;
    const int local = std::atoi(value);
    // Widened from one core to its share by main (widenSingleCoreLauncherBinding): those
    // cores; else its part of the CPUs it may run on.
    if (local > 1 || widenedLauncherBindingCores() > 0)
      omp_set_num_threads(widenedLauncherBindingCores() > 0
                              ? widenedLauncherBindingCores()
                              : std::max(1, omp_get_num_procs() / local));
    return;
  }
}

class CatalogReconCommand : public Command {
 public:
  CatalogReconCommand(CLI::App& recon, const catalog::AlgorithmDescriptor& descriptor)
      : descriptor_(descriptor), input_(makeReconInput(descriptor.gridPolicy)) {
    sub_ = recon.add_subcommand(descriptor.id, descriptor.summary);
    input_->addTo(*sub_);
    parameters_.addTo(*sub_, descriptor);
    if (descriptor.acceptsMask)
      sub_->add_option("--mask", maskFile_, "volume file: reconstruct only its non-zero voxels")
          ->check(CLI::ExistingFile);
    if (descriptor.acceptsInitialVolume)
      sub_->add_option("--init", initFile_,
                       "volume file to start from (warm start; the grid must match)")
          ->check(CLI::ExistingFile);
    if (descriptor.acceptsReference)
      sub_->add_option("--reference", referenceFile_,
                       "volume file on the same grid: the RMSE of every iterate against it")
          ->check(CLI::ExistingFile);
    if (descriptor.acceptsWeights)
      sub_->add_option("--weights", weightsFile_,
                       "statistical weights: photon counts per projection pixel, in any "
                       "projection or volume format (default: 1 for every ray)")
          ->check(CLI::ExistingFile);
    if (descriptor.iterative)
      sub_->add_option("--residuals", residualCsv_, "write the residual of every iteration as CSV");
    variants_.addTo(*sub_, descriptor);
    telemetryFile_.addTo(*sub_);
    if (slabCapable()) addSlabOptions();
  }
  CLI::App* subcommand() const override { return sub_; }

  // --mask, --init, --reference and --weights, read for the job.
  catalog::JobInputs readJobInputs(const ProjectionStack& projections) const {
    catalog::JobInputs inputs;
    if (!maskFile_.empty()) inputs.mask = std::make_shared<Volume>(io::readVolume(maskFile_));
    if (!initFile_.empty())
      inputs.initialVolume = std::make_shared<Volume>(io::readVolume(initFile_));
    if (!referenceFile_.empty())
      inputs.reference = std::make_shared<Volume>(io::readVolume(referenceFile_));
    if (!weightsFile_.empty())
      inputs.weights =
          std::make_shared<ProjectionStack>(io::readCountsAsWeights(weightsFile_, projections));
    return inputs;
  }

  // NAME.run.json of an in-memory run, staged with the other outputs.
  void recordRun(io::OutputSet& files, const Geometry& geometry, const nlohmann::json& parameters,
                 const catalog::RunReport& r, bool gpu) const {
    qa::RunRecord record = startRunRecord({"-o", "--out"}, input_->out, gpu);
    addInputs(record, files);
    addGeometry(record, geometry);
    record.algorithm = descriptor_.label;
    record.variant = r.variant;
    record.forwardVariant = r.forwardVariant;
    record.parameters = parameters;
    record.parameters.erase("gpu");  // recorded as the tunables
    // As the window records them (gui/core/CatalogRun): whether volumes went in.
    if (descriptor_.acceptsMask) record.parameters["mask"] = !maskFile_.empty();
    if (descriptor_.acceptsInitialVolume) record.parameters["warmStart"] = !initFile_.empty();
    if (descriptor_.acceptsWeights) record.parameters["weighted"] = !weightsFile_.empty();
    for (const auto& [key, value] : r.recordParameters.items()) record.parameters[key] = value;
    record.tunables = parameters.value("gpu", nlohmann::json::object());
    record.timings = r.timings;
    if (!r.metrics.is_null()) record.metrics = r.metrics;
    record.device["report"] = r.device;
    finishRunRecord(record, files, qa::runRecordPathFor(input_->out), {input_->out});
  }

  int run(const GlobalOptions& global) override {
    if (slabRun()) return runInSlabs(global);
    // Every file read and written, checked against each other before any work (OutputSet.h).
    io::OutputSet files(&interruptToken());
    input_->addInputsTo(files);
    files.addInput(maskFile_, "--mask", "mask");
    files.addInput(initFile_, "--init", "initial volume");
    files.addInput(referenceFile_, "--reference", "reference volume");
    files.addInput(weightsFile_, "--weights", "statistical weights");
    files.addOutput(input_->out, "-o");
    files.addOutput(residualCsv_, "--residuals");
    files.addOutput(telemetryFile_.path, "--telemetry");
    if (!global.noRecord) files.addOutput(qa::runRecordPathFor(input_->out), "run record");
    files.check();
    // The options first: a bad value, device or variant fails before the data is read.
    nlohmann::json parameters = nlohmann::json::object();
    parameters_.apply(parameters);
    variants_.apply(parameters);
    const bool gpu = VariantOptions::onGpu(descriptor_, parameters);
    warmUpGpus(parameters);  // beside reading the input

    ProgressBar bar(progressWanted(global.progress, global.quiet));
    TelemetryLog telemetry;
    JobContext context(interruptToken(), &bar, &telemetry);
    std::vector<std::string> inputWarnings;
    const ProjectionStack projections = input_->load(context, inputWarnings, global);
    for (const std::string& w : inputWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    checkNotRefused(projections.geometry());
    const VolumeGrid grid = input_->grid(projections.geometry());
    parameters["volume"] = catalog::gridToJson(grid);
    parameters = descriptor_.validate(parameters);
    std::unique_ptr<catalog::ReconstructionJob> job =
        descriptor_.makeJob(projections, parameters, readJobInputs(projections));

    if (!telemetryFile_.path.empty() && gpu)
      telemetry.startGpuSampling(
          parameters.value("gpu", nlohmann::json::object()).value("devices", std::vector<int>{}));
    job->run(context);
    telemetry.stopGpuSampling();
    io::writeVolume(files.staged(input_->out), job->result(), input_->writeOptions());
    context.throwIfCancelled();
    const catalog::RunReport& r = job->report();
    if (!residualCsv_.empty()) writeResidualCsv(files.staged(residualCsv_), r.iterations);
    if (!telemetryFile_.path.empty()) telemetry.writeFile(files.staged(telemetryFile_.path));
    bar.finish();
    if (!global.noRecord) recordRun(files, projections.geometry(), parameters, r, gpu);
    files.commit();  // all outputs at once, or none (a cancel until here leaves nothing)
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) {
      std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm\n", input_->out.c_str(),
                  static_cast<long long>(grid.shape.nx), static_cast<long long>(grid.shape.ny),
                  static_cast<long long>(grid.shape.nz), grid.voxelSizeMm.x());
      for (const std::string& line : r.summary) std::printf("%s\n", line.c_str());
      if (!residualCsv_.empty()) std::printf("residuals: %s\n", residualCsv_.c_str());
      if (!telemetryFile_.path.empty()) std::printf("telemetry: %s\n", telemetryFile_.path.c_str());
    }
    nlohmann::json summary = {{"command", "recon " + descriptor_.id},
                              {"input", input_->in},
                              {"output", input_->out},
                              {"grid", catalog::gridToJson(grid)},
                              {"parameters", parameters},
                              {"telemetry", telemetry.toJson()}};
    summary.update(input_->summaryFields());
    // The algorithm's own report under its family's key, as before the catalogue: "fdk" for
    // filtered backprojection, "iterative" for the iterative methods.
    summary[descriptor_.iterative ? "iterative" : "fdk"] = r.details;
    if (!descriptor_.iterative) summary["gpuOptions"] = parameters.value("gpu", nlohmann::json());
    printJson(global, summary);
    return kExitOk;
  }

 private:
  // Out of core and across ranks (recon/scale/SlabRun.h): FDK, SIRT, OS-SIRT and SART slab by
  // slab into -o.
  bool slabCapable() const {
    return descriptor_.id == "fdk" || descriptor_.id == "sirt" || descriptor_.id == "os-sirt" ||
           descriptor_.id == "sart";
  }
  bool iterativeSlabs() const { return descriptor_.id != "fdk"; }

  void addSlabOptions() {
    auto* g = sub_->add_option_group("Slabs", "out of core, restart, several processes");
    g->add_option("--slab-slices", slabSlices_,
                  iterativeSlabs()
                      ? "reconstruct in slabs of this many slices into -o (NAME.raw): an aligned "
                        "single-axis tilt series slab by slab (memory holds one slab and its "
                        "rows), any other geometry one block of slabs per rank, the ranks "
                        "exchanging the detector rows their slabs share (0: one slab per rank)"
                      : "reconstruct this many slices at a time, each slab written to -o "
                        "(NAME.raw) as it finishes: memory holds one slab and the detector rows "
                        "it needs (0: the tallest slab half the free host memory holds, lower "
                        "where need be for two slabs or mirrored pairs per rank; a resume: the "
                        "run's own)")
        ->check(CLI::NonNegativeNumber);
    if (iterativeSlabs()) {
      g->add_option("--checkpoint-every", checkpointEvery_,
                    "ranks sharing a block: keep the iterate every N iterations beside -o, so "
                    "that --resume goes on from there")
          ->check(CLI::NonNegativeNumber);
      g->add_option("--checkpoint-minutes", checkpointMinutes_,
                    "ranks sharing a block: keep the iterate every M minutes (also with "
                    "--checkpoint-every: whichever comes first)")
          ->check(CLI::NonNegativeNumber);
    }
    if (iterativeSlabs())
      g->add_flag("--volume-on-disk", volumeOnDisk_,
                  "a block of slabs that share detector rows (cone beam): keep its iterate, "
                  "update and weights in files beside -o and stream its slabs through the "
                  "projectors one at a time, for a volume larger than host memory (chosen "
                  "without asking when the block would not fit)");
    g->add_flag("--plan-only", planOnly_,
                "print the slab plan (slabs, detector rows, host memory, the output's size and "
                "the free disk) and stop, writing nothing");
    g->add_flag("--resume", resume_,
                "finish an interrupted slab run of -o: only the slabs its manifests do not list "
                "are reconstructed (any number of processes)");
    g->add_option("--rank", rank_, "this process's rank (default: mpirun's or srun's, else 0)")
        ->check(CLI::NonNegativeNumber);
    g->add_option("--ranks", ranks_,
                  "processes sharing the slabs (default: mpirun's or srun's, else 1)")
        ->check(CLI::PositiveNumber);
  }
  bool slabRun() const {
    if (!slabCapable()) return false;
    const auto environment = launcherRanks();
    return slabSlices_ >= 0 || resume_ || planOnly_ || ranks_ > 1 || checkpointEvery_ > 0 ||
           volumeOnDisk_ || checkpointMinutes_ > 0 ||
           (environment.has_value() && environment->second > 1);
  }

#ifdef TOMOWB_HAVE_MPI
  // Started by mpirun (and no --rank/--ranks): the ranks talk through MPI.
  std::unique_ptr<mpi::MpiCommunicator> startMpi(scale::SlabRunOptions& o) const {
    if (rank_ >= 0 || ranks_ >= 1 || !mpi::MpiCommunicator::launchedByMpirun()) return nullptr;
    auto ranks = std::make_unique<mpi::MpiCommunicator>();
    // A launcher's variables without its runtime (MPI found no peers): every process would
    // believe it is the only one and write every slab.
    if (const auto told = launcherRanks(); told && told->second != ranks->size())
      throw Error("the launcher says " + std::to_string(told->second) + " ranks, MPI (" +
                  ranks->describe() + ") found " + std::to_string(ranks->size()) +
                  ": start with the mpirun of the MPI this build uses, or with --rank/--ranks");
    o.communicator = ranks.get();
    o.rank = ranks->rank();
    o.ranks = ranks->size();
    return ranks;
  }
#endif

  // Our raw projections are read band by band; anything else (or a geometry given beside it)
  // is loaded whole into `loaded`, and only the volume is out of core.
  std::unique_ptr<scale::ProjectionRowSource> openRowSource(JobContext& context,
                                                            const GlobalOptions& global,
                                                            ProjectionStack& loaded,
                                                            bool& rawInput) {
    const std::filesystem::path in(input_->in);
    rawInput = (in.extension() == ".json" || in.extension() == ".raw") &&
               input_->summaryFields().value("geometryFile", std::string()).empty() &&
               io::readRawSidecar(in).content == io::RawContent::Projections;
    if (rawInput) return std::make_unique<scale::RawFileRowSource>(in);
    if (std::unique_ptr<scale::ProjectionRowSource> onDisk = input_->openRowsOnDisk(global))
      return onDisk;
    std::vector<std::string> warnings;
    loaded = input_->load(context, warnings, global);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    return std::make_unique<scale::InMemoryRowSource>(loaded);
  }

  // NAME.run.json of a finished slab run: who wrote which slabs, and the seconds each rank
  // spent reading, computing and writing.
  void writeSlabRecord(const scale::SlabRunReport& r, const nlohmann::json& parameters,
                       const std::string& variant, const std::string& forwardVariant,
                       const Geometry& geometry, bool rawInput) {
    // Who wrote which slabs, and the time each rank spent reading, computing and writing.
    qa::RunRecord record = startRunRecord({"-o", "--out"}, input_->out,
                                          VariantOptions::onGpu(descriptor_, parameters));
    // Every file hashed at once, each on a thread of its own: hashing the input and the output
    // of a large run one after the other took longer than the reconstruction (5 GiB: 5 to 7 s on
    // the H100 machine, bench/results/2026-11-27-scale-gpu-h100x2.md).
    const std::filesystem::path in(input_->in), out(input_->out);
    std::vector<std::pair<std::filesystem::path, std::string>> inputs = {{in, "projections"}};
    if (rawInput) inputs.emplace_back(io::rawDataPathFor(in), "projections data");
    std::vector<std::pair<std::filesystem::path, std::string>> outputs;
    // A folder of TIFF slices is not listed slice by slice (there may be thousands).
    if (io::isHdf5Path(out)) {
      outputs.emplace_back(out, "output");
    } else if (!scale::isSliceFolderOutput(out)) {
      outputs.emplace_back(io::rawSidecarPathFor(out), "output");
      outputs.emplace_back(io::rawDataPathFor(out), "output data");
    }
    const auto hashAll = [](const auto& files) {
      std::vector<std::future<qa::RecordedFile>> pending;
      pending.reserve(files.size());
      for (const auto& file : files)
        pending.push_back(std::async(std::launch::async,
                                     [&file] { return qa::recordFile(file.first, file.second); }));
      std::vector<qa::RecordedFile> done;
      done.reserve(pending.size());
      for (auto& p : pending) done.push_back(p.get());
      return done;
    };
    auto inputHashes = std::async(std::launch::async, [&] { return hashAll(inputs); });
    record.outputs = hashAll(outputs);
    record.inputs = inputHashes.get();
    addGeometry(record, geometry);
    record.algorithm = descriptor_.label;
    record.variant = variant;
    record.forwardVariant = forwardVariant;
    record.parameters = parameters;
    record.parameters.erase("gpu");  // recorded as the tunables
    record.tunables = parameters.value("gpu", nlohmann::json::object());
    record.parameters["slabs"] = {{"plan", r.plan.summary()},
                                  {"slices", r.plan.slabSlices},
                                  {"count", r.plan.slabs.size()},
                                  {"ranks", r.ranks}};
    if (r.resumedFromIteration > 0)
      record.parameters["slabs"]["resumedFromIteration"] = r.resumedFromIteration;
    double readSeconds = 0, computeSeconds = 0, writeSeconds = 0;
    for (const nlohmann::json& rank : r.ranks) {
      readSeconds += rank.value("readSeconds", 0.0);
      computeSeconds += rank.value("computeSeconds", 0.0);
      writeSeconds += rank.value("writeSeconds", 0.0);
    }
    record.timings = {{"readSeconds", readSeconds},
                      {"computeSeconds", computeSeconds},
                      {"writeSeconds", writeSeconds}};
    qa::writeRunRecord(qa::runRecordPathFor(out), record);
  }

  // The free memory of the first GPU a run uses (--gpus, else GPU 0); 0 when there is none.
  static std::uint64_t firstGpuFreeBytes(const GpuRunOptions& gpu) {
    const std::vector<cuda::GpuDevice> gpus = cuda::listGpuDevices();
    const int first = gpu.devices.empty() ? 0 : gpu.devices.front();
    if (first < 0 || first >= static_cast<int>(gpus.size())) return 0;
    return gpus[static_cast<std::size_t>(first)].freeMemoryBytes;
  }

  // A GPU variant: what its tallest slab asks of the device (estimateFdkMemory on that slab's
  // rows and grid, against the free memory of the first GPU the run would use); empty on the CPU.
  std::string slabDeviceText(const scale::SlabPlan& plan, const Geometry& geometry,
                             const fdk::FdkParams& params, const nlohmann::json& parameters) const {
    if (!VariantOptions::onGpu(descriptor_, parameters) || plan.slabs.empty()) return {};
    const auto widest = std::max_element(
        plan.slabs.begin(), plan.slabs.end(),
        [](const scale::Slab& a, const scale::Slab& b) { return a.rows() < b.rows(); });
    fdk::FdkParams slab = params;
    slab.volume = plan.slabGrid(*widest);
    fdk::FdkMemoryOptions memory;
    memory.deviceMemoryBytes = firstGpuFreeBytes(params.gpu);
    const fdk::FdkMemoryEstimate e = fdk::estimateFdkMemory(
        scale::cropRows(geometry, widest->rowFirst, widest->rowLast), slab, memory);
    return e.gpuSummary.empty() ? std::string() : "per slab on the GPU: " + e.gpuSummary;
  }

  // The GPU memory a slab streamed through the GPU projectors may take: the first GPU's free
  // memory less 256 MiB for the runtime (as the pairs keep), within --gpu-mem-limit.
  static std::uint64_t streamedSlabGpuBytes(const GpuRunOptions& gpu) {
    constexpr std::uint64_t kReserve = std::uint64_t{256} << 20;
    const std::uint64_t free = firstGpuFreeBytes(gpu);
    if (free == 0) return 0;  // no such GPU: the pair will say
    std::uint64_t usable = free > kReserve ? free - kReserve : 1;
    if (gpu.memoryLimitBytes > 0) usable = std::min(usable, gpu.memoryLimitBytes);
    return usable;
  }

  // Ranks on one machine that share one output file write it by turns (the kernel lets one
  // write() at a time into a file): 4 writers filled one file at 2.5 GB/s and four files at
  // 9.2 GB/s (bench/results/2026-11-27y). Said where that costs time: from 1 GiB on.
  static void printSharedFileNote(const scale::SlabPlan& plan, const scale::SlabRunOptions& o) {
    const auto local = localLauncherRanks();
    if (TOMOWB_HAVE_TIFF && local && local->second > 1 &&
        plan.volumeBytes >= (std::uint64_t{1} << 30) && !scale::isSliceFolderOutput(o.output))
      std::printf(
          "note: the %d ranks on this machine write into one file, one write at a time on a "
          "local file system; a folder of TIFF slices (-o FOLDER/) is written by all of them at "
          "once\n",
          local->second);
  }

  static void printPlan(const scale::SlabPlan& plan, const scale::SlabRunOptions& o) {
    std::string ranksText;
    if (o.communicator != nullptr)
      ranksText = "; " + o.communicator->describe();
    else if (o.ranks > 1)
      ranksText = "; " + std::to_string(o.ranks) + " ranks without MPI";
    std::printf("slab plan: %s%s\n", plan.summary().c_str(), ranksText.c_str());
    printSharedFileNote(plan, o);
  }

  // TOMOWB_PHASES=1: where the last slab's (or the block's) compute went.
  static void traceComputeSplit(bool iterative, const iterative::IterativeReport& solver,
                                const fdk::FdkReport& slab) {
    char text[320];
    if (iterative)
      std::snprintf(text, sizeof text,
                    "solver, last slab or block: setup %.3f s, forward %.3f s, back %.3f s, "
                    "total %.3f s",
                    solver.setupSeconds, solver.forwardSeconds, solver.backprojectSeconds,
                    solver.totalSeconds);
    else
      std::snprintf(text, sizeof text,
                    "fdk, last slab: host set-up %.3f s, device set-up %.3f s, first chunk %.3f s, "
                    "backprojection %.3f s, download tail %.3f s, host volume %.3f s (waited "
                    "%.3f s), total %.3f s",
                    slab.hostSetupSeconds, slab.deviceSetupSeconds, slab.firstChunkSeconds,
                    slab.backprojectSeconds, slab.downloadTailSeconds, slab.hostVolumeSeconds,
                    slab.hostVolumeWaitSeconds, slab.totalSeconds);
    tracePhase(text);
  }

  // The CUDA contexts of the GPUs a GPU run will use, made on threads of their own while the
  // input is read and the run planned (cuda::warmUpGpuContexts).
  void warmUpGpus(const nlohmann::json& parameters) const {
    if (!VariantOptions::onGpu(descriptor_, parameters)) return;
    const nlohmann::json gpu = parameters.value("gpu", nlohmann::json::object());
    cuda::warmUpGpuContexts(gpu.is_object() ? gpu.value("devices", std::vector<int>{})
                                            : std::vector<int>{});
  }

  // Ranks that share this machine share its GPUs: each takes GPU (local rank mod GPU count)
  // unless --gpus names them (one rank per GPU is the usual start: mpirun -np <GPUs>).
  void shareGpusWithLocalRanks(nlohmann::json& parameters) const {
    if (!VariantOptions::onGpu(descriptor_, parameters)) return;
    nlohmann::json& gpu = parameters["gpu"];
    if (gpu.is_object() && gpu.contains("devices") && !gpu["devices"].empty()) return;
    const auto local = localLauncherRanks();
    if (!local || local->second <= 1) return;
    const std::size_t count = cuda::listGpuDevices().size();
    if (count == 0) return;
    gpu["devices"] = {static_cast<int>(static_cast<std::size_t>(local->first) % count)};
  }

  // --plan-only: the plan, the blocks of a coupled run, and the disk the output needs against
  // what its folder has free (exit 1 when it cannot hold it).
  int printPlanOnly(const GlobalOptions& global, const scale::SlabPlan& plan,
                    const scale::SlabRunOptions& o, const std::string& deviceText,
                    const std::vector<std::string>& blocks) const {
    const std::uint64_t free = scale::freeDiskBytes(o.output);
    if (!deviceText.empty()) std::printf("%s\n", deviceText.c_str());
    for (const std::string& line : blocks) std::printf("%s\n", line.c_str());
    std::printf("slab plan: %s\ndisk: the output needs %.1f MiB, %.1f MiB free where it goes%s\n",
                plan.summary().c_str(), double(plan.volumeBytes) / 1048576.0,
                double(free) / 1048576.0, free < plan.volumeBytes ? " (NOT ENOUGH)" : "");
    printSharedFileNote(plan, o);
    printJson(global, {{"command", "recon " + descriptor_.id + " --plan-only"},
                       {"slabs", plan.slabs.size()},
                       {"slices", plan.slabSlices},
                       {"peakHostBytes", plan.peakHostBytes()},
                       {"outputBytes", plan.volumeBytes},
                       {"freeDiskBytes", free}});
    return free < plan.volumeBytes ? kExitError : kExitOk;
  }

  // Before the run (rank 0): the plan, the GPU's share of a slab, and how the slabs are solved.
  void printRunPlan(const scale::SlabPlan& plan, const scale::SlabRunOptions& o,
                    const std::string& deviceText, const std::vector<std::string>& blocks,
                    bool coupled, bool iterative, int ranks) const {
    printPlan(plan, o);
    if (!deviceText.empty()) std::printf("%s\n", deviceText.c_str());
    if (coupled) {
      const char* checkpoints =
          o.checkpointEvery > 0 || o.checkpointMinutes > 0 ? "; checkpoints beside the output" : "";
      if (ranks > 1)
        std::printf(
            "%s of this geometry: the %d ranks each solve a block of slabs together, "
            "exchanging the detector rows their blocks share after every forward "
            "projection%s\n",
            descriptor_.id.c_str(), ranks, checkpoints);
      else
        std::printf(
            "%s of this geometry: one block (its slabs share detector rows; under "
            "mpirun the ranks split it and exchange those rows)%s\n",
            descriptor_.id.c_str(), checkpoints);
      for (const std::string& line : blocks) std::printf("  %s\n", line.c_str());
    } else if (iterative) {
      std::printf("%s of an aligned single-axis tilt series: slab by slab, each on its own\n",
                  descriptor_.id.c_str());
    }
  }

  // After the run: what this rank did, the solver's last state, and where the output is.
  void printRunResult(const scale::SlabRunOptions& o, const scale::SlabRunReport& r,
                      const iterative::IterativeReport& iterativeReport, bool iterative,
                      bool coupled, const VolumeGrid& grid,
                      const nlohmann::json& parameters) const {
    // What this rank ran on (bindLocalRankToOneGpu, widenSingleCoreLauncherBinding).
    std::string gpuText;
    if (o.ranks > 1 || widenedLauncherBindingCores() > 0) {
      const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");  // NOLINT(concurrency-mt-unsafe)
      gpuText = " (" + std::to_string(omp_get_max_threads()) + " threads";
      if (visible != nullptr && VariantOptions::onGpu(descriptor_, parameters))
        gpuText += std::string(", CUDA_VISIBLE_DEVICES=") + visible;
      gpuText += ")";
    }
    std::printf(
        "rank %d of %d%s: %zu slab%s reconstructed here, %d done before; read %.2f s, "
        "compute %.2f s, write %.2f s\n",
        o.rank, o.ranks, gpuText.c_str(), r.computed.size(), r.computed.size() == 1 ? "" : "s",
        r.doneBefore, r.readSeconds, r.computeSeconds, r.writeSeconds);
    if (iterative && !iterativeReport.method.empty()) {
      const std::vector<IterationRecord>& its = iterativeReport.iterations;
      std::printf("%s with %s + %s on %s: %s%s", iterativeReport.method.c_str(),
                  iterativeReport.forwardVariant.c_str(), iterativeReport.backVariant.c_str(),
                  iterativeReport.device.c_str(), iterativeReport.stopReason.c_str(),
                  coupled ? "" : " (the last slab)");
      if (!its.empty())
        std::printf(", relative residual %.4g after iteration %d", its.back().relativeResidual,
                    its.back().iteration);
      if (r.resumedFromIteration > 0)
        std::printf(" (resumed from the checkpoint of iteration %d)", r.resumedFromIteration);
      if (coupled && o.ranks > 1)
        std::printf("; %lld detector rows shared with other ranks, %.1f MiB summed with them",
                    static_cast<long long>(r.sharedRows), double(r.exchangedBytes) / 1048576.0);
      if (r.checkpointsWritten > 0)
        std::printf("; %d checkpoint%s kept", r.checkpointsWritten,
                    r.checkpointsWritten == 1 ? "" : "s");
      std::printf("\n");
    }
    if (r.finished)
      std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm\n", input_->out.c_str(),
                  static_cast<long long>(grid.shape.nx), static_cast<long long>(grid.shape.ny),
                  static_cast<long long>(grid.shape.nz), grid.voxelSizeMm.x());
    else if (!r.complete)
      std::printf("%s appears when the other ranks' slabs are in\n", input_->out.c_str());
  }

  // The algorithm's own refusal of this geometry (a short scan for FDK, ...), naming the input.
  void checkNotRefused(const Geometry& geometry) const {
    if (!descriptor_.refuses) return;
    if (const std::string why = descriptor_.refuses(geometry); !why.empty())
      throw ParameterError(input_->in, why);
  }

  // Not "no output was written" (main's words): what is done stays for --resume.
  static void printInterrupted(bool coupled, const std::filesystem::path& output) {
    std::fprintf(stderr,
                 coupled ? "\ntomowb-cli: interrupted; the last checkpoint (if any) is beside "
                           "%s: the same command with --resume goes on from it\n"
                         : "\ntomowb-cli: interrupted; the slabs written so far are in %s "
                           "(listed in its manifests): the same command with --resume "
                           "finishes the run\n",
                 scale::partialPathFor(output).c_str());
  }

  // -o must not be a file the run reads (the projections' sidecar or samples): a slab run
  // writes its output in place as it goes. (A folder of slices replaces an older one at the end.)
  void checkSlabOutput() const {
    if (scale::isSliceFolderOutput(input_->out)) return;
    io::OutputSet files(&interruptToken());
    input_->addInputsTo(files);
    files.addInput(maskFile_, "--mask", "mask");
    files.addInput(initFile_, "--init", "initial volume");
    files.addOutput(input_->out, "-o");
    files.check();
  }

  // The run's output, slab height and resume flag, and this process's rank among how many: as
  // --rank/--ranks say, else as the launcher's environment does, else 0 of 1.
  scale::SlabRunOptions slabRunOptions() const {
    scale::SlabRunOptions o;
    o.output = input_->out;
    o.plan.slabSlices = std::max<std::int64_t>(slabSlices_, 0);
    o.resume = resume_;
    const auto environment = launcherRanks();
    o.rank = rank_ >= 0 ? rank_ : environment.has_value() ? environment->first : 0;
    o.ranks = ranks_ >= 1 ? ranks_ : environment.has_value() ? environment->second : 1;
    return o;
  }

  // The iterative parameters of a slab run, with the start volume and mask on the whole grid;
  // each slab or block takes its slices. (They are read whole: the grid's size once, beside the
  // slabs.) A resume must use the same ones, so their paths go into what it checks.
  iterative::IterativeParams slabIterativeParams(const nlohmann::json& parameters,
                                                 scale::SlabRunOptions& o) const {
    iterative::IterativeParams params = catalog::iterativeParamsFromJson(parameters);
    if (!maskFile_.empty()) {
      params.mask = std::make_shared<Volume>(io::readVolume(maskFile_));
      o.parameters["mask"] = std::filesystem::absolute(maskFile_).string();
    }
    if (!initFile_.empty()) {
      params.initialVolume = std::make_shared<Volume>(io::readVolume(initFile_));
      o.parameters["init"] = std::filesystem::absolute(initFile_).string();
    }
    return params;
  }

  // How the slabs are solved: a coupled iterative run takes one block of slabs per rank (one slab
  // each unless asked) and, out of core, streams the planner's slabs through the projectors
  // (within the GPU's memory on a GPU); the options that fit only such a run are refused for
  // the others.
  void planBlocks(scale::SlabRunOptions& o, const Geometry& geometry, const VolumeGrid& grid,
                  const iterative::IterativeParams& iterativeParams,
                  const nlohmann::json& parameters, bool coupled, bool iterative, int ranks) const {
    if (coupled) {
      // One slab per rank unless asked otherwise; out of core (asked, or a block larger than
      // host memory), one process streams the planner's slabs through the projectors.
      scale::SlabPlanOptions perRank = o.plan;
      if (perRank.slabSlices == 0)
        perRank.slabSlices = std::max<std::int64_t>(1, (grid.shape.nz + ranks - 1) / ranks);
      const int rank = o.communicator != nullptr ? o.communicator->rank() : o.rank;
      o.volumeFolder =
          scale::iterativeVolumeFolder(scale::planSlabs(geometry, grid, perRank), rank, ranks,
                                       iterativeParams, o.output, volumeOnDisk_);
      if (o.volumeFolder.empty() || ranks > 1 || o.plan.slabSlices > 0)
        o.plan.slabSlices = perRank.slabSlices;
      // Out of core on a GPU, a slab at a time goes through the GPU projectors: it must fit there.
      if (!o.volumeFolder.empty() && VariantOptions::onGpu(descriptor_, parameters))
        o.plan.deviceMemoryBytes = streamedSlabGpuBytes(iterativeParams.gpu);
    } else if (volumeOnDisk_) {
      throw ParameterError("--volume-on-disk",
                           "this run's slabs are independent (an aligned single-axis tilt "
                           "series): it is out of core slab by slab already");
    }
    if (!coupled && (checkpointEvery_ > 0 || checkpointMinutes_ > 0))
      throw ParameterError("--checkpoint-every",
                           iterative ? "this run's slabs are independent (an aligned single-axis "
                                       "tilt series): each finished slab is kept, no iterate "
                                       "needs a checkpoint"
                                     : "only iterative runs keep checkpoints; FDK keeps every "
                                       "finished slab");
  }

  int runInSlabs(const GlobalOptions& global) {
    checkSlabOutput();
    shareCoresWithLocalRanks();
    scale::SlabRunOptions o = slabRunOptions();
#ifdef TOMOWB_HAVE_MPI
    const std::unique_ptr<mpi::MpiCommunicator> mpiRanks = startMpi(o);
#endif
    tracePhase("MPI started (or none)");
    nlohmann::json parameters = nlohmann::json::object();
    parameters_.apply(parameters);
    variants_.apply(parameters);
    shareGpusWithLocalRanks(parameters);
    warmUpGpus(parameters);

    ProgressBar bar(progressWanted(global.progress, global.quiet) && o.rank == 0);
    JobContext context(interruptToken(), &bar);
    ProjectionStack loaded;
    bool rawInput = false;
    const std::unique_ptr<scale::ProjectionRowSource> source =
        openRowSource(context, global, loaded, rawInput);
    tracePhase("input opened");
    const Geometry& geometry = source->geometry();
    checkNotRefused(geometry);
    const VolumeGrid grid = input_->grid(geometry);
    parameters["volume"] = catalog::gridToJson(grid);
    parameters = descriptor_.validate(parameters);
    o.parameters = parameters;
    o.parameters.erase("gpu");  // the devices may differ between a run and its resume
    o.checkpointEvery = checkpointEvery_;
    o.checkpointMinutes = checkpointMinutes_;
    const bool iterative = iterativeSlabs();
    fdk::FdkParams params;
    iterative::IterativeParams iterativeParams;
    if (iterative) {
      iterativeParams = slabIterativeParams(parameters, o);
    } else {
      params = catalog::fdkParamsFromJson(parameters);
      o.plan.mirrorPairs = scale::fdkSlabsPairWithMirrors(geometry, params);  // as the run will
    }
    // An iterative run whose slabs share detector rows: one block of slabs per rank (by default
    // one slab each), solved together.
    const bool coupled =
        iterative && !scale::iterativeSlabsAreIndependent(geometry, iterativeParams);
    const int ranks = o.communicator != nullptr ? o.communicator->size() : o.ranks;
    planBlocks(o, geometry, grid, iterativeParams, parameters, coupled, iterative, ranks);
    // Independent pieces, where the planner picks the height: two or more for each rank, so
    // that reading and writing overlap the reconstruction (mpirun -np 2 on a grid that fits
    // in memory left the second rank idle with one slab).
    if (!coupled) o.plan.sharedByRanks = ranks;
    // A resume without --slab-slices goes on with the height of the run it finishes, which this
    // process's memory and ranks may no longer choose.
    if (resume_ && o.plan.slabSlices == 0)
      o.plan.slabSlices = scale::earlierRunSlabSlices(o.output);
    const scale::SlabPlan plan = scale::planSlabs(geometry, grid, o.plan);
    o.plan.slabSlices = plan.slabSlices;  // planned once, from this process's memory
    tracePhase("slabs planned");
    const std::string deviceText =
        iterative ? std::string() : slabDeviceText(plan, geometry, params, parameters);
    const bool printsPlan = planOnly_ || (!global.quiet && !global.json && o.rank == 0);
    const std::vector<std::string> blocks =
        coupled && printsPlan
            ? scale::iterativeBlockSummary(plan, ranks, iterativeParams, o.volumeFolder)
            : std::vector<std::string>{};
    if (planOnly_) return printPlanOnly(global, plan, o, deviceText, blocks);
    if (!global.quiet && !global.json && o.rank == 0)
      printRunPlan(plan, o, deviceText, blocks, coupled, iterative, ranks);
    scale::SlabRunReport r;
    iterative::IterativeReport iterativeReport;
    try {
      r = iterative ? scale::reconstructIterativeInSlabs(*source, iterativeParams, o, context,
                                                         &iterativeReport)
                    : scale::reconstructFdkInSlabs(*source, params, o, context);
    } catch (const Cancelled&) {
      printInterrupted(coupled, o.output);
      return kExitCancelled;
    }
    bar.finish();
    tracePhase("slabs done, output in place");
    if (!r.computed.empty()) traceComputeSplit(iterative, iterativeReport, r.lastSlab);
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json)
      printRunResult(o, r, iterativeReport, iterative, coupled, grid, parameters);
    if (r.finished && !global.noRecord) {
      // The variant that ran: the solver's backprojector, or the last FDK slab's kernel.
      std::string variant = r.lastSlab.kernel.empty() ? params.variant : r.lastSlab.kernel;
      std::string forward;
      if (iterative) {
        variant = iterativeReport.backVariant;
        forward = iterativeReport.forwardVariant;
      }
      writeSlabRecord(r, parameters, variant, forward, geometry, rawInput);
    }
    printJson(global, {{"command", "recon " + descriptor_.id},
                       {"input", input_->in},
                       {"output", input_->out},
                       {"grid", catalog::gridToJson(grid)},
                       {"parameters", parameters},
                       {"slabs",
                        {{"plan", plan.summary()},
                         {"count", plan.slabs.size()},
                         {"slices", plan.slabSlices},
                         {"rank", o.rank},
                         {"ranks", o.ranks},
                         {"computed", r.computed},
                         {"resumedFromIteration", r.resumedFromIteration},
                         {"checkpoints", r.checkpointsWritten},
                         {"doneBefore", r.doneBefore},
                         {"finished", r.finished},
                         {"complete", r.complete},
                         {"readSeconds", r.readSeconds},
                         {"computeSeconds", r.computeSeconds},
                         {"writeSeconds", r.writeSeconds}}}});
    return kExitOk;
  }

  std::int64_t slabSlices_ = -1;  // -1: no slab run asked for
  int checkpointEvery_ = 0;
  bool volumeOnDisk_ = false;
  double checkpointMinutes_ = 0;
  bool resume_ = false;
  bool planOnly_ = false;
  int rank_ = -1, ranks_ = 0;

  const catalog::AlgorithmDescriptor& descriptor_;
  CLI::App* sub_ = nullptr;
  std::unique_ptr<ReconInput> input_;
  ParameterOptions parameters_;
  VariantOptions variants_;
  std::string maskFile_, initFile_, referenceFile_, weightsFile_, residualCsv_;
  TelemetryFileOptions telemetryFile_;
};

}  // namespace

std::vector<std::unique_ptr<Command>> makeReconCommands(CLI::App& app) {
  std::vector<std::unique_ptr<Command>> out;
  CLI::App& recon = *app.add_subcommand("recon", "reconstruct projections");
  recon.require_subcommand(1);
  for (const catalog::AlgorithmDescriptor& d : catalog::AlgorithmCatalog::builtins().all())
    out.push_back(std::make_unique<CatalogReconCommand>(recon, d));
  return out;
}

}  // namespace tomowb::cli
