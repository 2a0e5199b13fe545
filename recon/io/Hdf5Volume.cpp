// HDF5 volumes: see the header. Built only with TOMOWB_HDF5 (recon/io/NoHdf5.cpp otherwise).
#include "recon/io/Hdf5Volume.h"

#include <fcntl.h>
#include <hdf5.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "recon/core/DetachedSpawnAttributes.h"
#include "recon/core/Error.h"
#include "recon/io/Hdf5ReaderMain.h"

namespace tomowb::io {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDataset = "volume";

std::string errnoText(int error) {
  char buffer[256];
  // GNU strerror_r may return a static string instead of filling the buffer.
  return ::strerror_r(error, buffer, sizeof buffer);
}

// An HDF5 identifier closed when it goes (files, datasets, spaces, types, property lists).
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 prints its error stack to stderr by default; ours name the file instead.
void silenceHdf5() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

void writeVector(hid_t object, const char* name, const Eigen::Vector3d& v, const fs::path& path) {
  const hsize_t three = 3;
  const Id space(H5Screate_simple(1, &three, nullptr), H5Sclose);
  const Id attribute(
      H5Acreate2(object, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const std::array<double, 3> values = {v.x(), v.y(), v.z()};
  if (!attribute.ok() || H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, values.data()) < 0)
    throw IoError(path, std::string("cannot write the attribute '") + name + "'");
}

void writeText(hid_t object, const char* name, const std::string& text, const fs::path& path) {
  const Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<std::size_t>(text.size(), 1));
  const Id space(H5Screate(H5S_SCALAR), H5Sclose);
  const Id attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                     H5Aclose);
  if (!attribute.ok() || H5Awrite(attribute.get(), type.get(), text.c_str()) < 0)
    throw IoError(path, std::string("cannot write the attribute '") + name + "'");
}

// The attribute's 3 values, or `fallback` when the file has none (files from other programs).
Eigen::Vector3d readVector(hid_t object, const char* name, const Eigen::Vector3d& fallback,
                           const fs::path& path) {
  if (H5Aexists(object, name) <= 0) return fallback;
  const Id attribute(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  const Id space(H5Aget_space(attribute.get()), H5Sclose);
  if (!space.ok() || H5Sget_simple_extent_npoints(space.get()) != 3)
    throw FormatError(path, name, "must hold 3 numbers (x, y, z)");
  std::array<double, 3> v{};
  if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, v.data()) < 0)
    throw FormatError(path, name, "cannot be read as numbers");
  for (double x : v)
    if (!std::isfinite(x)) throw FormatError(path, name, "must be finite numbers");
  return {v[0], v[1], v[2]};
}

struct OpenDataset {
  std::unique_ptr<Id> file, dataset;
  VolumeShape shape;
};

OpenDataset openDataset(const fs::path& path) {
  silenceHdf5();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw IoError(path, "cannot open: not a file");
  if (H5Fis_hdf5(path.c_str()) <= 0) throw FormatError(path, "is not an HDF5 file");
  OpenDataset d;
  d.file = std::make_unique<Id>(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!d.file->ok())
    throw FormatError(path, "is an HDF5 file that HDF5 cannot open: truncated or damaged");
  if (H5Lexists(d.file->get(), kDataset, H5P_DEFAULT) <= 0)
    throw FormatError(path, kDataset, "missing: the volume is the dataset \"/volume\"");
  d.dataset = std::make_unique<Id>(H5Dopen2(d.file->get(), kDataset, H5P_DEFAULT), H5Dclose);
  if (!d.dataset->ok()) throw FormatError(path, kDataset, "cannot be opened as a dataset");
  const Id space(H5Dget_space(d.dataset->get()), H5Sclose);
  if (!space.ok() || H5Sget_simple_extent_ndims(space.get()) != 3)
    throw FormatError(path, kDataset, "must have 3 dimensions (z, y, x)");
  std::array<hsize_t, 3> dims{};
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  constexpr auto kMax = static_cast<hsize_t>(std::numeric_limits<std::int32_t>::max());
  for (hsize_t n : dims)
    if (n < 1 || n > kMax)
      throw FormatError(path, kDataset, "dimension " + std::to_string(n) + " out of range");
  d.shape = {static_cast<std::int64_t>(dims[2]), static_cast<std::int64_t>(dims[1]),
             static_cast<std::int64_t>(dims[0])};
  const Id type(H5Dget_type(d.dataset->get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT && H5Tget_class(type.get()) != H5T_INTEGER)
    throw FormatError(path, kDataset, "must hold numbers (float or integer samples)");
  return d;
}

std::uint64_t volumeBytes(const VolumeShape& s) {
  return static_cast<std::uint64_t>(s.nx) * static_cast<std::uint64_t>(s.ny) *
         static_cast<std::uint64_t>(s.nz) * 4;
}

}  // namespace

bool hdf5VolumesSupported() noexcept {
  return true;
}

std::uint64_t createHdf5VolumeFile(const fs::path& path, const VolumeGrid& grid,
                                   const std::string& units) {
  silenceHdf5();
  (void)Volume::checkAllocation(grid.shape, grid.voxelSizeMm, grid.originMm);  // a sane grid
  std::uint64_t offset = 0;
  {
    const Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.ok()) throw IoError(path, "cannot create the HDF5 file");
    const std::array<hsize_t, 3> dims = {static_cast<hsize_t>(grid.shape.nz),
                                         static_cast<hsize_t>(grid.shape.ny),
                                         static_cast<hsize_t>(grid.shape.nx)};
    const Id space(H5Screate_simple(3, dims.data(), nullptr), H5Sclose);
    const Id properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    // Contiguous, allocated now, never filled: the samples have one offset in the file and cost
    // no writing until they are written.
    H5Pset_layout(properties.get(), H5D_CONTIGUOUS);
    H5Pset_alloc_time(properties.get(), H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(properties.get(), H5D_FILL_TIME_NEVER);
    const Id dataset(H5Dcreate2(file.get(), kDataset, H5T_IEEE_F32LE, space.get(), H5P_DEFAULT,
                                properties.get(), H5P_DEFAULT),
                     H5Dclose);
    if (!dataset.ok())
      throw IoError(path, "cannot create the dataset \"/volume\" (" +
                              std::to_string(volumeBytes(grid.shape)) + " bytes)");
    writeVector(dataset.get(), "voxelSizeMm", grid.voxelSizeMm, path);
    writeVector(dataset.get(), "originMm", grid.originMm, path);
    writeText(dataset.get(), "units", units, path);
    const haddr_t address = H5Dget_offset(dataset.get());
    if (address == HADDR_UNDEF) throw IoError(path, "the dataset has no place in the file");
    offset = static_cast<std::uint64_t>(address);
  }  // closed: the file now reaches past the samples
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size < offset + volumeBytes(grid.shape)) {
    // Sparse allocation: make the file as long as its samples need.
    if (::truncate(path.c_str(), static_cast<off_t>(offset + volumeBytes(grid.shape))) != 0)
      throw IoError(path, std::string("cannot size the file: ") + errnoText(errno));
  }
  return offset;
}

namespace {

// The grid from the dataset's attributes: 1 mm voxels centred on the origin when it has none.
VolumeGrid gridOf(const OpenDataset& d, const fs::path& path) {
  const Eigen::Vector3d voxel =
      readVector(d.dataset->get(), "voxelSizeMm", Eigen::Vector3d::Ones(), path);
  const Eigen::Vector3d extent(double(d.shape.nx - 1), double(d.shape.ny - 1),
                               double(d.shape.nz - 1));
  const Eigen::Vector3d origin =
      readVector(d.dataset->get(), "originMm", -0.5 * voxel.cwiseProduct(extent), path);
  for (int a = 0; a < 3; ++a)
    if (!(voxel[a] > 0)) throw FormatError(path, "voxelSizeMm", "must be > 0");
  return {d.shape, voxel, origin};
}

// libhdf5 1.10's parser has memory-safety bugs on malformed files: our fuzzer (fuzz_hdf5) found a
// heap overflow in H5Aexists within seconds and hundreds of crashing inputs in minutes
// (2026-11-27). So a file to read is parsed by libhdf5 in another process only: the program
// tomowb-hdf5-reader (hdf5ReaderMain), started with posix_spawn. It sends what it read (the grid,
// the samples' offset, the samples) through a pipe on its descriptor 3; this process never runs
// libhdf5 on a file it reads, and a reader that crashes, fails or sends too little becomes a
// FormatError naming the file.
//
// The reader is a program of its own, not a fork of this one: a child forked from a process with
// other threads inherits every lock they held at that moment (libhdf5's, which is built
// thread-safe, and the allocator's under ASan), and the child hung for ever on one of them (CI,
// 2026-11-28). Spawning a fresh program also costs no copy of a large process's page tables.
constexpr std::uint32_t kReaderProtocol = 0x54574831;  // "TWH1": the header's layout, version 1
struct ChildHeader {
  std::uint32_t protocol = kReaderProtocol;
  std::int32_t status = 0;  // 0 ok, 1 FormatError, 2 IoError, 3 another error
  std::int64_t nx = 0, ny = 0, nz = 0;
  std::array<double, 3> voxel{}, origin{};
  std::uint64_t offset = 0;  // of contiguous little-endian float32 samples; kNoOffset otherwise
  std::uint32_t messageBytes = 0;
};
constexpr std::uint64_t kNoOffset = ~std::uint64_t{0};
constexpr int kReaderPipe = 3;  // the reader's descriptor of the pipe's writing end
constexpr const char* kReaderProgram = "tomowb-hdf5-reader";

bool writeAll(int fd, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

bool readAll(int fd, void* data, std::size_t bytes) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::read(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

// Whether `box` holds some rows of slices that lie inside a dataset of nz slices of ny rows.
bool boxFits(const Hdf5Box& box, std::int64_t nz, std::int64_t ny) noexcept {
  return box.z0 >= 0 && box.z0 <= box.z1 && box.z1 <= nz && box.y0 >= 0 && box.y0 < box.y1 &&
         box.y1 <= ny;
}

// The reader's work: parses the file, sends the header (and an error's message), then the samples
// slice by slice when asked (only the box's rows of its slices, when given). Returns the reader's
// exit status.
int readAndSend(int fd, const fs::path& path, bool samples, const Hdf5Box* box) {
  ChildHeader h;
  std::string message;
  std::unique_ptr<OpenDataset> d;
  try {
    d = std::make_unique<OpenDataset>(openDataset(path));
    const VolumeGrid grid = gridOf(*d, path);
    h.nx = grid.shape.nx;
    h.ny = grid.shape.ny;
    h.nz = grid.shape.nz;
    for (int a = 0; a < 3; ++a) {
      h.voxel[std::size_t(a)] = grid.voxelSizeMm[a];
      h.origin[std::size_t(a)] = grid.originMm[a];
    }
    const Id type(H5Dget_type(d->dataset->get()), H5Tclose);
    const Id properties(H5Dget_create_plist(d->dataset->get()), H5Pclose);
    const bool contiguous = H5Pget_layout(properties.get()) == H5D_CONTIGUOUS;
    const haddr_t address = contiguous ? H5Dget_offset(d->dataset->get()) : HADDR_UNDEF;
    h.offset = address != HADDR_UNDEF && H5Tequal(type.get(), H5T_IEEE_F32LE) > 0
                   ? static_cast<std::uint64_t>(address)
                   : kNoOffset;
    if (samples && box == nullptr && address != HADDR_UNDEF) {
      // Contiguous samples must lie inside the file.
      const std::uint64_t bytes = static_cast<std::uint64_t>(h.nx) *
                                  static_cast<std::uint64_t>(h.ny) *
                                  static_cast<std::uint64_t>(h.nz) * H5Tget_size(type.get());
      std::error_code ec;
      const std::uintmax_t size = fs::file_size(path, ec);
      if (ec || static_cast<std::uint64_t>(address) + bytes > size)
        throw FormatError(path, kDataset,
                          "is truncated: its samples end at byte " +
                              std::to_string(static_cast<std::uint64_t>(address) + bytes) +
                              " of a " + std::to_string(size) + "-byte file");
    }
  } catch (const FormatError& e) {
    h.status = 1;
    message = e.what();
  } catch (const IoError& e) {
    h.status = 2;
    message = e.what();
  } catch (const std::exception& e) {
    h.status = 3;
    message = e.what();
  }
  h.messageBytes = static_cast<std::uint32_t>(message.size());
  if (!writeAll(fd, &h, sizeof h) || !writeAll(fd, message.data(), message.size())) return 2;
  if (h.status != 0 || !samples) return 0;
  const Hdf5Box whole{0, h.nz, 0, h.ny};
  const Hdf5Box& b = box != nullptr ? *box : whole;
  if (!boxFits(b, h.nz, h.ny)) return 4;  // the parent checks it against the header and says so
  const Id fileSpace(H5Dget_space(d->dataset->get()), H5Sclose);
  const std::array<hsize_t, 3> count = {1, static_cast<hsize_t>(b.y1 - b.y0),
                                        static_cast<hsize_t>(h.nx)};
  const Id memorySpace(H5Screate_simple(3, count.data(), nullptr), H5Sclose);
  std::vector<float> slice(static_cast<std::size_t>(h.nx * (b.y1 - b.y0)));
  for (std::int64_t z = b.z0; z < b.z1; ++z) {
    const std::array<hsize_t, 3> start = {static_cast<hsize_t>(z), static_cast<hsize_t>(b.y0), 0};
    if (H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                            nullptr) < 0 ||
        H5Dread(d->dataset->get(), H5T_NATIVE_FLOAT, memorySpace.get(), fileSpace.get(),
                H5P_DEFAULT, slice.data()) < 0 ||
        !writeAll(fd, slice.data(), slice.size() * sizeof(float)))
      return 3;  // the parent finds the samples short
  }
  return 0;
}

bool isExecutable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The reader program: $TOMOWB_HDF5_READER when set; else beside this program, in
// ../libexec/tomowb/ of it (the installed package), or in ../recon/ of it (a build tree's cli/,
// tests/, bench/, gui/ and fuzz/, also one copied elsewhere). An IoError naming `forFile` and the
// places looked in when there is none.
fs::path findReaderProgram(const fs::path& forFile) {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): nothing here sets the environment
  if (const char* named = std::getenv("TOMOWB_HDF5_READER"); named != nullptr && *named != 0) {
    if (isExecutable(named)) return named;
    throw IoError(forFile, std::string("cannot start the HDF5 reader: TOMOWB_HDF5_READER names ") +
                               named + ", which is not an executable file");
  }
  std::vector<fs::path> places;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    places.push_back(self.parent_path() / kReaderProgram);
    places.push_back(self.parent_path().parent_path() / "libexec" / "tomowb" / kReaderProgram);
    // A build tree's programs (cli/, tests/, bench/, gui/) beside its recon/, moved or not.
    places.push_back(self.parent_path().parent_path() / "recon" / kReaderProgram);
  }
  std::string looked;
  for (const fs::path& p : places) {
    if (isExecutable(p)) return p;
    looked += (looked.empty() ? "" : ", ") + p.string();
  }
  throw IoError(forFile, std::string("cannot read HDF5 files without the program ") +
                             kReaderProgram + " (looked in " + looked +
                             "): reinstall Tomo Workbench, or set TOMOWB_HDF5_READER to it");
}

// The reader process of one read: killed and reaped if this process gives up on it early.
class ReaderChild {
 public:
  ReaderChild(const fs::path& path, bool samples, const Hdf5Box* box) : path_(path) {
    const fs::path program = findReaderProgram(path);
    std::vector<std::string> args = {program.string(), samples ? "samples" : "grid", path.string()};
    if (box != nullptr)
      for (const std::int64_t v : {box->z0, box->z1, box->y0, box->y1})
        args.push_back(std::to_string(v));
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw IoError(path, "cannot start the HDF5 reader process: " + errnoText(errno));
    // The pipe's writing end becomes the reader's descriptor 3 (dup2 clears close-on-exec there,
    // even when the numbers are equal); no other process started meanwhile inherits the pipe. The
    // reader holds nothing else of ours: stdin and stdout from /dev/null, descriptors past 3
    // closed (files libhdf5 writes, MPI's sockets, a test runner's pipes).
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], kReaderPipe);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    posix_spawn_file_actions_addclosefrom_np(&actions, kReaderPipe + 1);
#endif
    // Its own process group and signals: Ctrl-C reaches this process, whose handler cancels the
    // run, and not the reader, whose death would read as a damaged file; a reader whose parent
    // is gone ends on its next write (SIGPIPE).
    const DetachedSpawnAttributes attributes;
    const int error =
        ::posix_spawn(&pid_, program.c_str(), &actions, attributes.get(), argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (error != 0) {
      pid_ = -1;
      ::close(fds[0]);
      throw IoError(path,
                    "cannot start the HDF5 reader " + program.string() + ": " + errnoText(error));
    }
    fd_ = fds[0];
    program_ = program;
  }
  ~ReaderChild() {
    if (fd_ >= 0) ::close(fd_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  ReaderChild(const ReaderChild&) = delete;
  ReaderChild& operator=(const ReaderChild&) = delete;

  // Reads `bytes` from the child, or throws naming how the child ended.
  void read(void* data, std::size_t bytes) {
    if (!readAll(fd_, data, bytes)) fail();
  }
  // Waits for the child's exit once everything is read; throws if it did not end well.
  void finish() {
    ::close(fd_);
    fd_ = -1;
    const int status = reap();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) describe(status);
  }
  // Waits for the child's exit after it reported an error, whatever its exit status.
  void finishAfterError() {
    ::close(fd_);
    fd_ = -1;
    (void)reap();
  }

 private:
  int reap() {
    int status = 0;
    pid_t reaped = -1;
    while ((reaped = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return reaped < 0 ? -1 : status;  // -1: lost (reaped elsewhere), neither exited nor signalled
  }
  [[noreturn]] void fail() {
    ::close(fd_);
    fd_ = -1;
    describe(reap());
  }
  // How the reader ended, as an error naming the file: a crash inside libhdf5, or libhdf5 unable
  // to read the samples (the reader's exit status 3), says the file is damaged; anything else
  // (stopped by a signal, a reader program that is not ours or fails) says the reader failed.
  [[noreturn]] void describe(int status) {
    if (status != -1 && WIFSIGNALED(status)) {
      const int signal = WTERMSIG(status);
      if (signal == SIGSEGV || signal == SIGBUS || signal == SIGABRT || signal == SIGFPE ||
          signal == SIGILL)
        throw FormatError(path_, "is damaged: the HDF5 library crashed reading it (signal " +
                                     std::to_string(signal) + ")");
      throw IoError(path_, "was not read: the HDF5 reader " + program_.string() +
                               " was stopped by signal " + std::to_string(signal));
    }
    const int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 3)
      throw FormatError(path_, "is damaged: the HDF5 library could not read its samples");
    throw IoError(path_, "was not read: the HDF5 reader " + program_.string() +
                             " ended without sending it (exit status " + std::to_string(code) +
                             ")");
  }
  fs::path path_, program_;
  pid_t pid_ = -1;
  int fd_ = -1;
};

// The child's error again, as the same kind of error (its text without the path it starts with).
[[noreturn]] void rethrow(const fs::path& path, std::int32_t status, std::string message) {
  const std::string prefix = path.string() + ": ";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  if (status == 2) throw IoError(path, message);
  throw FormatError(path, message);
}

struct ReadResult {
  VolumeGrid grid;
  std::uint64_t offset = kNoOffset;
};

// Reads the file's grid and offset in a child; with `samples`, also its samples (those of `box`
// when given) into the memory `allocate(grid, floats)` gives for the `floats` samples to come
// (nx * ny * nz, or the box's); it throws where that is not what it can hold.
template <typename Allocate>
ReadResult readInChild(const fs::path& path, bool samples, Allocate allocate,
                       const Hdf5Box* box = nullptr) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw IoError(path, "cannot open: not a file");
  ReaderChild child(path, samples, box);
  ChildHeader h;
  child.read(&h, sizeof h);
  // A reader of another build, or another program, sends something else: nothing of it is used.
  constexpr std::int64_t kMaxSide = std::numeric_limits<std::int32_t>::max();
  const bool sane = h.protocol == kReaderProtocol && h.messageBytes <= (1u << 16) &&
                    h.status >= 0 && h.status <= 3 &&
                    (h.status != 0 || (h.nx >= 1 && h.nx <= kMaxSide && h.ny >= 1 &&
                                       h.ny <= kMaxSide && h.nz >= 1 && h.nz <= kMaxSide));
  if (!sane)
    throw IoError(path,
                  "was not read: the HDF5 reader program sent something else than its "
                  "answer (a reader of another build?)");
  std::string message(h.messageBytes, '\0');
  child.read(message.data(), message.size());
  if (h.status != 0) {
    child.finishAfterError();  // its message, not its exit status, says what went wrong
    rethrow(path, h.status, std::move(message));
  }
  ReadResult r;
  r.grid = {{h.nx, h.ny, h.nz},
            Eigen::Vector3d(h.voxel[0], h.voxel[1], h.voxel[2]),
            Eigen::Vector3d(h.origin[0], h.origin[1], h.origin[2])};
  r.offset = h.offset;
  if (samples) {
    if (box != nullptr && !boxFits(*box, h.nz, h.ny))
      throw ParameterError(
          "HDF5 box", "slices " + std::to_string(box->z0) + ".." + std::to_string(box->z1) +
                          ", rows " + std::to_string(box->y0) + ".." + std::to_string(box->y1) +
                          " lie outside " + path.string() + "'s " + std::to_string(h.nz) +
                          " slices of " + std::to_string(h.ny) + " rows");
    const std::uint64_t floats =
        static_cast<std::uint64_t>(h.nx) *
        static_cast<std::uint64_t>(box != nullptr ? box->y1 - box->y0 : h.ny) *
        static_cast<std::uint64_t>(box != nullptr ? box->z1 - box->z0 : h.nz);
    float* data = allocate(r.grid, floats);
    const std::uint64_t bytes = floats * 4;
    for (std::uint64_t done = 0; done < bytes;) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, 1u << 26));
      child.read(reinterpret_cast<char*>(data) + done, n);
      done += n;
    }
  }
  child.finish();
  return r;
}

ReadResult readGridInChild(const fs::path& path) {
  return readInChild(path, false,
                     [](const VolumeGrid&, std::uint64_t) -> float* { return nullptr; });
}

}  // namespace

int hdf5ReaderMain(int argc, char** argv) {
  const auto usage = [] {
    std::fprintf(stderr,
                 "tomowb-hdf5-reader: Tomo Workbench starts this program to read an HDF5 file "
                 "and send it through descriptor %d; it is not run by hand.\n"
                 "usage: tomowb-hdf5-reader grid|samples FILE [Z0 Z1 Y0 Y1]\n",
                 kReaderPipe);
    return 64;
  };
  if (::fcntl(kReaderPipe, F_GETFD) < 0 || (argc != 3 && argc != 7)) return usage();
  const std::string mode = argv[1];
  if (mode != "grid" && mode != "samples") return usage();
  std::array<std::int64_t, 4> box{};
  for (int i = 3; i < argc; ++i) {
    char* end = nullptr;
    errno = 0;
    box[std::size_t(i - 3)] = std::strtoll(argv[i], &end, 10);
    if (errno != 0 || end == argv[i] || *end != 0) return usage();
  }
  const Hdf5Box b{box[0], box[1], box[2], box[3]};
  ::signal(SIGPIPE, SIG_DFL);  // a parent that stops reading ends the reader
  // _exit: no libhdf5 teardown or leak check at exit (libhdf5 leaks in its error paths) can
  // change the status the parent reads.
  ::_exit(readAndSend(kReaderPipe, argv[2], mode == "samples", argc == 7 ? &b : nullptr));
}

std::uint64_t hdf5VolumeDataOffset(const fs::path& path, const VolumeGrid& grid) {
  const ReadResult r = readGridInChild(path);
  if (!(r.grid.shape == grid.shape))
    throw FormatError(path, kDataset,
                      "holds " + std::to_string(r.grid.shape.nx) + " x " +
                          std::to_string(r.grid.shape.ny) + " x " +
                          std::to_string(r.grid.shape.nz) + " voxels, not this run's grid");
  if (r.offset == kNoOffset)
    throw FormatError(path, kDataset, "is not the contiguous float32 dataset this run writes");
  return r.offset;
}

VolumeGrid readHdf5VolumeGrid(const fs::path& path) {
  return readGridInChild(path).grid;
}

Hdf5VolumeLayout readHdf5VolumeLayout(const fs::path& path) {
  const ReadResult r = readGridInChild(path);
  Hdf5VolumeLayout out;
  out.grid = r.grid;
  if (r.offset != kNoOffset) out.contiguousOffset = r.offset;
  return out;
}

void readHdf5VolumeBox(const fs::path& path, const Hdf5Box& box, std::span<float> out) {
  readInChild(
      path, true,
      [&](const VolumeGrid& grid, std::uint64_t floats) {
        // The file may have changed since the caller sized `out` from its grid.
        if (floats != out.size())
          throw FormatError(path, kDataset,
                            "changed while it was read: its rows now hold " +
                                std::to_string(grid.shape.nx) + " samples, and the box " +
                                std::to_string(floats) + " samples, not the " +
                                std::to_string(out.size()) + " expected");
        return out.data();
      },
      &box);
}

Volume readHdf5Volume(const fs::path& path) {
  Volume volume;
  readInChild(path, true, [&](const VolumeGrid& grid, std::uint64_t) {
    // Checks the sizes (finite, positive voxels; no overflow) and memory before allocating.
    volume = Volume(grid.shape, grid.voxelSizeMm, grid.originMm);
    return volume.data();
  });
  return volume;
}

void writeHdf5VolumeChunked(const fs::path& path, const Volume& volume, const std::string& units) {
  silenceHdf5();
  const fs::path partial(path.string() + ".partial");
  bool ok = false;
  {
    const Id file(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.ok()) throw IoError(partial, "cannot create the HDF5 file");
    const std::array<hsize_t, 3> dims = {static_cast<hsize_t>(volume.nz()),
                                         static_cast<hsize_t>(volume.ny()),
                                         static_cast<hsize_t>(volume.nx())};
    const std::array<hsize_t, 3> chunk = {1, dims[1], dims[2]};  // one slice a chunk
    const Id space(H5Screate_simple(3, dims.data(), nullptr), H5Sclose);
    const Id properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(properties.get(), 3, chunk.data());
    H5Pset_deflate(properties.get(), 4);
    const Id dataset(H5Dcreate2(file.get(), kDataset, H5T_IEEE_F32LE, space.get(), H5P_DEFAULT,
                                properties.get(), H5P_DEFAULT),
                     H5Dclose);
    if (dataset.ok()) {
      writeVector(dataset.get(), "voxelSizeMm", volume.voxelSizeMm(), partial);
      writeVector(dataset.get(), "originMm", volume.originMm(), partial);
      writeText(dataset.get(), "units", units, partial);
      ok = H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                    volume.data()) >= 0;
    }
  }
  std::error_code ec;
  if (ok) fs::rename(partial, path, ec);
  if (!ok || ec) {
    fs::remove(partial, ec);
    throw IoError(path, "cannot write the chunked HDF5 volume");
  }
}

void writeHdf5Volume(const fs::path& path, const Volume& volume, const std::string& units) {
  const fs::path partial(path.string() + ".partial");
  const VolumeGrid grid = VolumeGrid::of(volume);
  const std::uint64_t offset = createHdf5VolumeFile(partial, grid, units);
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CLOEXEC);
  std::error_code ec;
  if (fd < 0) {
    fs::remove(partial, ec);
    throw IoError(partial, std::string("cannot open for writing: ") + errnoText(errno));
  }
  const auto* p = reinterpret_cast<const char*>(volume.data());
  const std::uint64_t bytes = volumeBytes(volume.shape());
  std::uint64_t done = 0;
  int error = 0;
  while (done < bytes) {
    const ssize_t n = ::pwrite(
        fd, p + done, static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, 1u << 30)),
        static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::uint64_t>(n);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  ::close(fd);
  if (error == 0) fs::rename(partial, path, ec);
  if (error != 0 || ec) {
    fs::remove(partial, ec);
    throw IoError(path, std::string("cannot write the volume: ") +
                            (error != 0 ? errnoText(error) : "rename failed"));
  }
}

}  // namespace tomowb::io
