// MpiCommunicator: see the header.
#include "recon/mpi/MpiCommunicator.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "recon/core/Error.h"

namespace tomowb::mpi {

namespace {

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS)
    throw Error(std::string("MPI: ") + what +
                " failed (a rank was lost or the job is being torn down): " + mpiErrorText(code) +
                "; the manifests list every slab written, and --resume finishes the run");
}

}  // namespace

bool MpiCommunicator::launchedByMpirun() {
  // Read before any thread starts (the CLI asks first thing in a slab run).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;  // NOLINT(concurrency-mt-unsafe)
  return false;
}

MpiCommunicator::MpiCommunicator() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised == 0) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      throw Error("MPI: MPI_Init_thread failed");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  library_ = std::string(version, static_cast<std::size_t>(length));
  // "Open MPI v4.1.4, package: ...": the first clause.
  if (const std::size_t comma = library_.find(','); comma != std::string::npos)
    library_.resize(comma);
}

MpiCommunicator::~MpiCommunicator() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised == 0) MPI_Finalize();
}

bool MpiCommunicator::allOk(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD), "MPI_Allreduce");
  return all != 0;
}

std::int64_t MpiCommunicator::minimum(std::int64_t value) {
  long long mine = value, all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

double MpiCommunicator::maximum(double value) {
  double all = 0;
  check(MPI_Allreduce(&value, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

namespace {

// In place, in pieces an int counts (MPI's element counts are ints).
template <typename T>
void sumInPlace(std::span<T> values, MPI_Datatype type) {
  constexpr std::size_t kPiece = std::size_t{1} << 28;
  for (std::size_t first = 0; first < values.size(); first += kPiece) {
    const std::size_t n = std::min(kPiece, values.size() - first);
    check(MPI_Allreduce(MPI_IN_PLACE, values.data() + first, static_cast<int>(n), type, MPI_SUM,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
}

}  // namespace

void MpiCommunicator::sum(std::span<float> values) {
  sumInPlace(values, MPI_FLOAT);
}
void MpiCommunicator::sum(std::span<double> values) {
  sumInPlace(values, MPI_DOUBLE);
}

void MpiCommunicator::abortAll(const std::string& why) {
  std::fprintf(stderr, "tomowb-cli: rank %d ends the run: %s\n", rank_, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

std::string MpiCommunicator::describe() const {
  return library_ + ", rank " + std::to_string(rank_) + " of " + std::to_string(size_);
}

}  // namespace tomowb::mpi
