// Host buffers for the large arrays (ProjectionStack, Volume): page-locked ("pinned") memory when
// a CUDA device is present and the buffer is large, ordinary 64-byte aligned memory otherwise;
// always zero-filled. Issue #6: on the H100 machine pinned host<->device copies run at 55 GB/s and
// pageable ones at 8-9.5 GB/s, so the GPU pipeline streams projections and volumes straight from
// these buffers. How (measured on that machine, 2026-11-23, 4 GiB): cudaHostAlloc takes 1.3 s and
// cudaFreeHost 0.35 s, plus 0.34 s for a single-threaded zero fill; a 2 MiB-aligned block with
// transparent huge pages, zeroed by several threads (0.10 s) and then registered with
// cudaHostRegister (0.08 s), copies just as fast and frees in 0.08 s. Since issue #22 a large
// block is an anonymous mapping of its own, whose pages the kernel zeroes as they are first
// touched: several threads write one byte per page instead of a memset (0.09 against 0.14 s for
// 4 GiB on the two-H100 machine). HostMemory.cpp does the allocation and the first touch; the
// registration sits behind pinHostRange/unpinHostRange, implemented in
// recon/core/cuda/PinnedMemory.cpp (CUDA builds: asks the runtime once whether a device exists; a
// failed registration leaves ordinary memory) and recon/core/cuda/PinnedMemoryNoCuda.cpp (CPU-only
// builds: never pinned).
#pragma once

#include <cstddef>
#include <filesystem>
#include <new>
#include <type_traits>
#include <utility>

namespace tomowb {

// Buffers of at least this size are pinned when a CUDA device is present, and their pages
// faulted in by several threads; smaller ones are not worth a registration (tens of microseconds
// per call).
inline constexpr std::size_t kPinnedHostBufferMinBytes = std::size_t{16} << 20;

// A zero-filled block of at least `bytes` bytes, 64-byte aligned, pinned as described above.
// Never returns nullptr; throws std::bad_alloc when even ordinary memory is exhausted. Free it
// with freeHostBuffer and the same `bytes`.
void* allocateHostBuffer(std::size_t bytes);
void freeHostBuffer(void* buffer, std::size_t bytes) noexcept;

// Whether a block returned by allocateHostBuffer (its start, not a pointer into it) is pinned.
bool isPinnedHostBuffer(const void* buffer) noexcept;

// From now on, freeHostBuffer hands large blocks (kPinnedHostBufferMinBytes and up) to a thread
// of their own, which unpins and frees them: the window's GUI thread must not wait for it
// (unpinning a 512^3 volume took 85 ms on the H100 machine, the longest stall of a GPU run's
// first preview; issue #21, point 11). Off by default: the CLI frees where it stands.
void setHostBufferReleaseInBackground(bool enabled) noexcept;
// Blocks handed to that thread and not yet freed.
std::size_t hostBuffersAwaitingRelease() noexcept;
// Returns once that thread has freed every block handed to it (before leaving main: the CUDA
// runtime must still be there to unpin them).
void waitForHostBufferReleases();

// While one is alive, the blocks of `minBytes` and up that allocateHostBuffer makes on this
// thread live in files instead of memory: each an unlinked file in `folder`, its
// disk space reserved up front (a full disk fails here, with IoError naming the folder, not
// later with SIGBUS), mapped shared, read as zeros. The kernel pages them in and out, so volumes
// larger than host memory can be allocated and worked on (out-of-core SIRT, issue #22). The
// files vanish when the blocks are freed, or with the process. Nestable; per thread.
class FileBackedHostBuffers {
 public:
  explicit FileBackedHostBuffers(std::filesystem::path folder,
                                 std::size_t minBytes = kPinnedHostBufferMinBytes);
  ~FileBackedHostBuffers();
  FileBackedHostBuffers(const FileBackedHostBuffers&) = delete;
  FileBackedHostBuffers& operator=(const FileBackedHostBuffers&) = delete;
  FileBackedHostBuffers(FileBackedHostBuffers&&) = delete;
  FileBackedHostBuffers& operator=(FileBackedHostBuffers&&) = delete;

 private:
  std::filesystem::path folder_;
  std::size_t minBytes_;
  const FileBackedHostBuffers* previous_;
};

// Freed pinned blocks are kept for the next large block of about their size (PinnedBlockPool.h:
// at most 4 blocks and an eighth of the machine's memory, 16 GiB at most), which then comes back
// registered already and is only zeroed: a GUI session's next reconstruction on the same grid, or
// a slab run's next slab, skips the registration (0.11 s for 4 GiB with one GPU, 0.2 s with two,
// holding the driver's lock) and the unregistration at the free. Blocks in files and blocks that
// are not pinned (no GPU) are never kept. On by default where the process sees two GPUs or more:
// two GPUs into a new 1024^3 volume went from 1.22-1.40x one GPU to 1.81-1.86x, while one GPU,
// which never waited for its volume, lost 2 to 3 ms at 512^3 to the zeroing
// (bench/results/2026-11-28b-pinned-pool-h200x2.md). TOMOWB_PINNED_POOL=on or off decides instead.
bool pinnedBlockPoolEnabled() noexcept;
std::uint64_t pinnedBytesKeptForReuse() noexcept;
// Unpins and frees every kept block (memory is short; HostMemory does it itself before a large
// mapping fails for want of memory).
void releaseKeptPinnedBlocks() noexcept;

// Whether a block returned by allocateHostBuffer lives in a file (FileBackedHostBuffers).
bool isFileBackedHostBuffer(const void* buffer) noexcept;

namespace detail {
// Page-locks [base, base + bytes) for fast device copies; false if there is no device or the
// runtime refuses (the memory stays usable). unpinHostRange undoes a successful pin.
bool pinHostRange(void* base, std::size_t bytes) noexcept;
void unpinHostRange(void* base) noexcept;
// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applied); 0 without CUDA or a device.
int visibleGpuCount() noexcept;
}  // namespace detail

// std-compatible, stateless allocator over allocateHostBuffer: all instances are equal, so
// containers copy, move and swap their storage freely. construct() without arguments
// default-initialises (writes nothing): the block is already zero-filled, so a vector sized once
// with resize(n) holds zeros without a second pass over gigabytes. Beware that shrinking and then
// growing within the capacity gives back the old values, not zeros.
template <typename T>
struct HostBufferAllocator {
  using value_type = T;

  HostBufferAllocator() noexcept = default;
  template <typename U>
  HostBufferAllocator(const HostBufferAllocator<U>&) noexcept {}  // NOLINT: implicit by design

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocateHostBuffer(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { freeHostBuffer(p, n * sizeof(T)); }

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <typename U>
  bool operator==(const HostBufferAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace tomowb
