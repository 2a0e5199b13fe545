#include "recon/core/HostMemory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/HostBufferFiles.h"
#include "recon/core/MemoryBudget.h"
#include "recon/core/PinnedBlockPool.h"

namespace tomowb {

namespace {

// Each block starts with this header; the caller's pointer is 64 bytes further on, so it stays
// 64-byte aligned and freeing needs no lookup table.
constexpr std::size_t kHeaderBytes = 64;
// Large blocks are 2 MiB aligned so that transparent huge pages can back them: the first touch
// and the registration then handle 512 times fewer pages (4 GiB: zero fill 0.17 -> 0.10 s,
// cudaHostRegister 0.15 -> 0.08 s, free 0.13 -> 0.01 s on the H100 machine, 2026-11-23).
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
// Threads for the first touch of a large block: page faults, not bandwidth, limit one thread
// (a memset of 4 GiB on the two-H100 machine's 32 cores, 2026-11-27: 1 thread 1.0 s, 8 0.18 s,
// 16 0.12 s, 32 0.08 s; bench/probes/host_alloc_probe.cu).
constexpr unsigned kMaxZeroThreads = 64;
constexpr std::size_t kMinBytesPerZeroThread = std::size_t{8} << 20;
constexpr std::uint32_t kMagic = 0x746f6d6fu;  // "tomo"

// Ordinary: a small block from std::aligned_alloc. Mapped: a large block, an anonymous mapping
// of its own (MappedPinned: registered with CUDA). FileMapped: a mapping of an unlinked file.
enum class BlockKind : std::uint32_t { Ordinary = 1, FileMapped = 3, Mapped = 4, MappedPinned = 5 };

struct BlockHeader {
  std::uint32_t magic;
  BlockKind kind;
  std::uint64_t mappedBytes;  // FileMapped, Mapped*: the mapping's length, from the header on
};
static_assert(sizeof(BlockHeader) <= kHeaderBytes);

std::size_t roundUp(std::size_t bytes, std::size_t multiple) {
  return (bytes + multiple - 1) / multiple * multiple;
}

// `part(from, n)` over [block, block + bytes) in page-aligned parts, one per thread (at least
// 8 MiB each, at most one per core). If a thread cannot be started, the calling thread does the
// rest.
template <typename Part>
void inParallelParts(std::byte* block, std::size_t bytes, const Part& part) noexcept {
  constexpr std::size_t kPage = 4096;
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::clamp<std::size_t>(bytes / kMinBytesPerZeroThread, 1,
                                                      std::min(hardware, kMaxZeroThreads));
  const std::size_t chunk = roundUp((bytes + threads - 1) / threads, kPage);
  std::vector<std::thread> workers;
  std::size_t offset = 0;
  try {
    workers.reserve(threads);
    for (; offset + chunk < bytes; offset += chunk)
      workers.emplace_back([=, &part] { part(block + offset, chunk); });
  } catch (...) {  // std::system_error or std::bad_alloc: fewer threads, same result
  }
  part(block + offset, bytes - offset);
  for (std::thread& worker : workers) worker.join();
}

// Faults in every page of a fresh anonymous mapping (which the kernel hands out zeroed) with one
// write per 4 KiB page, in parallel: half the time of a memset, which writes every byte again
// (4 GiB on the two-H100 machine with 16 threads: 0.09 to 0.10 s against 0.11 to 0.16 s,
// bench/probes/host_alloc_probe.cu contexts, 2026-11-27).
void touchPages(std::byte* block, std::size_t bytes) noexcept {
  inParallelParts(block, bytes, [](std::byte* from, std::size_t n) {
    for (std::size_t o = 0; o < n; o += 4096) from[o] = std::byte{0};
  });
}

// A kept block's first `bytes` back to zeros, on as many threads as a first touch.
void zeroInParallel(std::byte* block, std::size_t bytes) noexcept {
  inParallelParts(block, bytes, [](std::byte* from, std::size_t n) { std::memset(from, 0, n); });
}

// The machine's memory (0: unknown).
std::uint64_t physicalMemoryBytes() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageBytes = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && pageBytes > 0 ? std::uint64_t(pages) * std::uint64_t(pageBytes) : 0;
}

// Unpins and unmaps a pinned block: what freeing one is, in the pool or not.
void releasePinned(void* base, std::size_t bytes) noexcept {
  detail::unpinHostRange(base);
  ::munmap(base, bytes);
}

// Whether the memory free besides what the pool keeps (MemAvailable, a cgroup's or an address
// space limit) is below twice `bytes` or an eighth of the whole: then a freed block is not kept,
// and the pool empties before a new block is mapped.
bool memoryIsShortFor(std::uint64_t bytes) noexcept {
  try {
    const std::uint64_t available = availableHostMemoryBytes();
    const std::uint64_t kept = pinnedBytesKeptForReuse();
    const std::uint64_t free = available > kept ? available - kept : 0;
    return available > 0 && free < std::max(2 * bytes, physicalMemoryBytes() / 8);
  } catch (...) {  // cannot tell: keep nothing
    return true;
  }
}

// The pool of freed pinned blocks (HostMemory.h), made with the first large block and never
// destroyed (a block may be freed by a static destructor at exit; the OS reclaims what it keeps).
// Its limits ask CUDA how many GPUs there are: the functions that only read it go through
// `existingPool` so that a memory estimate never initialises CUDA.
std::atomic<PinnedBlockPool*> existingPool{nullptr};
PinnedBlockPool& pinnedPool() {
  static auto* pool = [] {
    PinnedBlockPool::Limits limits;
    const char* text = std::getenv("TOMOWB_PINNED_POOL");  // NOLINT(concurrency-mt-unsafe)
    const std::string mode = text != nullptr ? text : "";
    const bool on = mode == "on" || (mode != "off" && detail::visibleGpuCount() >= 2);
    if (on) limits.maxBytes = std::min(physicalMemoryBytes() / 8, std::uint64_t{16} << 30);
    // NOLINTNEXTLINE(cppcoreguidelines-owning-memory): never destroyed
    return new PinnedBlockPool(limits, releasePinned);
  }();
  existingPool.store(pool);
  return *pool;
}

// A fresh anonymous mapping of `total` bytes starting on a 2 MiB boundary (so that transparent huge
// pages can back all of it), or null.
std::byte* mapAligned(std::size_t total) noexcept {
  const std::size_t padded = total + kHugePageBytes;
  void* raw = ::mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto* start = static_cast<std::byte*>(raw);
  const auto address = reinterpret_cast<std::uintptr_t>(start);
  std::byte* aligned = start + (roundUp(address, kHugePageBytes) - address);
  if (aligned > start) ::munmap(start, std::size_t(aligned - start));
  const std::size_t tail = std::size_t(start + padded - (aligned + total));
  if (tail > 0) ::munmap(aligned + total, tail);
#ifdef MADV_HUGEPAGE
  // Where transparent huge pages are on only for regions that ask (the "madvise" setting, the
  // default of Ubuntu and Debian), ask: else every 4 KiB page of a 4 GiB volume is faulted,
  // zeroed, pinned and freed one by one. A hint; TOMOWB_HUGE_PAGES=off leaves it out.
  static const bool wanted = [] {
    const char* text = std::getenv("TOMOWB_HUGE_PAGES");  // NOLINT(concurrency-mt-unsafe)
    return text == nullptr || std::string(text) != "off";
  }();
  if (wanted) ::madvise(aligned, total, MADV_HUGEPAGE);
#endif
  return aligned;
}

void* withHeader(void* base, BlockKind kind) noexcept {
  auto* header = static_cast<BlockHeader*>(base);
  header->magic = kMagic;
  header->kind = kind;
  return static_cast<std::byte*>(base) + kHeaderBytes;
}

BlockHeader* headerOf(const void* buffer) noexcept {
  return reinterpret_cast<BlockHeader*>(
      const_cast<std::byte*>(static_cast<const std::byte*>(buffer)) - kHeaderBytes);
}

// The innermost FileBackedHostBuffers of this thread (null: memory), its folder and size.
thread_local const FileBackedHostBuffers* fileBacked = nullptr;
thread_local const std::filesystem::path* fileBackedFolder = nullptr;
thread_local std::size_t fileBackedMinBytes = 0;

std::string errorText(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// A block in an unlinked file of `folder`: its blocks reserved, mapped shared (zeros).
void* allocateFileBacked(std::size_t bytes, const std::filesystem::path& folder) {
  const std::size_t total = roundUp(bytes + kHeaderBytes, 4096);
  std::string pattern = (folder / ".tomowb-volume-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    throw IoError(folder, "cannot make a file for a volume kept on disk: " + errorText(errno));
  ::unlink(pattern.c_str());  // gone with the last reference: the mapping
  const int reserved = ::posix_fallocate(fd, 0, static_cast<off_t>(total));
  if (reserved != 0) {
    ::close(fd);
    throw IoError(folder, "cannot reserve " + std::to_string(total) +
                              " bytes on disk for a volume kept there (" + errorText(reserved) +
                              ")");
  }
  void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int mapError = errno;
  ::close(fd);
  if (base == MAP_FAILED)
    throw IoError(folder, "cannot map a volume kept on disk: " + errorText(mapError));
  void* block = withHeader(base, BlockKind::FileMapped);
  static_cast<BlockHeader*>(base)->mappedBytes = total;
  return block;
}

}  // namespace

FileBackedHostBuffers::FileBackedHostBuffers(std::filesystem::path folder, std::size_t minBytes)
    : folder_(std::move(folder)), minBytes_(minBytes), previous_(fileBacked) {
  fileBacked = this;
  fileBackedFolder = &folder_;
  fileBackedMinBytes = minBytes_;
}

FileBackedHostBuffers::~FileBackedHostBuffers() {
  fileBacked = previous_;
  fileBackedFolder = previous_ != nullptr ? &previous_->folder_ : nullptr;
  fileBackedMinBytes = previous_ != nullptr ? previous_->minBytes_ : 0;
}

bool hostBufferGoesToFile(std::size_t bytes) noexcept {
  return fileBackedFolder != nullptr && bytes >= fileBackedMinBytes && bytes > 0;
}

void* allocateHostBuffer(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(-1) - kHeaderBytes - kHugePageBytes) throw std::bad_alloc();
  const bool large = bytes >= kPinnedHostBufferMinBytes;
  if (hostBufferGoesToFile(bytes)) return allocateFileBacked(bytes, *fileBackedFolder);
  if (!large) {
    const std::size_t total = roundUp(bytes + kHeaderBytes, kHeaderBytes);
    // NOLINTNEXTLINE(cppcoreguidelines-owning-memory,cppcoreguidelines-no-malloc): release()
    auto* base = static_cast<std::byte*>(std::aligned_alloc(kHeaderBytes, total));
    if (base == nullptr) throw std::bad_alloc();
    std::memset(base, 0, total);
    return withHeader(base, BlockKind::Ordinary);
  }
  // A large block is a mapping of its own: its pages come zeroed from the kernel (a block from
  // the heap may hold an old block's values and would need a full memset).
  const std::size_t total = roundUp(bytes + kHeaderBytes, kHugePageBytes);
  if (const PinnedBlockPool::Block kept = pinnedPool().take(total); kept.base != nullptr) {
    auto* start = static_cast<std::byte*>(kept.base);
    zeroInParallel(start, bytes + kHeaderBytes);
    void* block = withHeader(start, BlockKind::MappedPinned);
    headerOf(block)->mappedBytes = kept.bytes;
    return block;
  }
  // A new block where memory is short: what the pool keeps goes back first (the kernel
  // overcommits, so a mapping seldom fails; its pages would fail, with the OOM killer).
  if (pinnedPool().keptBlocks() > 0 && memoryIsShortFor(total)) pinnedPool().releaseAll();
  std::byte* base = mapAligned(total);
  if (base == nullptr && pinnedPool().keptBlocks() > 0) {  // what the pool keeps, then again
    pinnedPool().releaseAll();
    base = mapAligned(total);
  }
  if (base == nullptr) throw std::bad_alloc();
  // Fault every page in before pinning: the registration would fault them in one thread.
  touchPages(base, total);
  void* block = withHeader(
      base, detail::pinHostRange(base, total) ? BlockKind::MappedPinned : BlockKind::Mapped);
  headerOf(block)->mappedBytes = total;
  return block;
}

namespace {

void release(BlockHeader* header) noexcept {
  if (header->kind == BlockKind::FileMapped) {
    ::munmap(header, header->mappedBytes);  // and the file with it
    return;
  }
  if (header->kind == BlockKind::MappedPinned) {  // kept for the next block of its size
    if (pinnedPool().enabled() && !memoryIsShortFor(header->mappedBytes))  // unless memory is short
      pinnedPool().keep(header, header->mappedBytes);
    else
      releasePinned(header, header->mappedBytes);
    return;
  }
  if (header->kind == BlockKind::Mapped) {
    ::munmap(header, header->mappedBytes);
    return;
  }
  // NOLINTNEXTLINE(cppcoreguidelines-no-malloc,cppcoreguidelines-owning-memory): aligned_alloc's
  std::free(header);
}

// The thread that frees large blocks for setHostBufferReleaseInBackground, started with the first
// such block. Never destroyed (a block may be freed by a static destructor at exit); the window
// waits for it (waitForHostBufferReleases) before it returns from main.
class BackgroundReleaser {
 public:
  static BackgroundReleaser& instance() {
    static auto* releaser = new BackgroundReleaser;  // NOLINT(cppcoreguidelines-owning-memory)
    return *releaser;
  }
  std::atomic<bool> enabled{false};

  void push(BlockHeader* header) noexcept {
    try {
      std::lock_guard lock(mutex_);
      if (!started_) {
        std::thread([this] { run(); }).detach();
        started_ = true;
      }
      queue_.push_back(header);
      ++waiting_;
    } catch (...) {  // no thread or no memory for the queue: free it here
      release(header);
      return;
    }
    wake_.notify_one();
  }
  std::size_t waiting() {
    std::lock_guard lock(mutex_);
    return waiting_;
  }
  void waitUntilEmpty() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return waiting_ == 0; });
  }

 private:
  BackgroundReleaser() = default;
  [[noreturn]] void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return !queue_.empty(); });
      BlockHeader* header = queue_.front();
      queue_.pop_front();
      lock.unlock();
      release(header);
      lock.lock();
      if (--waiting_ == 0) done_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<BlockHeader*> queue_;
  std::size_t waiting_ = 0;  // queued or being freed
  bool started_ = false;
};

}  // namespace

void setHostBufferReleaseInBackground(bool enabled) noexcept {
  BackgroundReleaser::instance().enabled = enabled;
}

std::size_t hostBuffersAwaitingRelease() noexcept {
  try {
    return BackgroundReleaser::instance().waiting();
  } catch (...) {  // a mutex that cannot lock
    return 0;
  }
}

void waitForHostBufferReleases() {
  BackgroundReleaser::instance().waitUntilEmpty();
}

void freeHostBuffer(void* buffer, std::size_t bytes) noexcept {
  if (buffer == nullptr) return;
  BlockHeader* header = headerOf(buffer);
  if (header->magic != kMagic) std::abort();  // not from allocateHostBuffer: heap corruption
  header->magic = 0;
  if (bytes >= kPinnedHostBufferMinBytes && BackgroundReleaser::instance().enabled.load()) {
    BackgroundReleaser::instance().push(header);
    return;
  }
  release(header);
}

bool pinnedBlockPoolEnabled() noexcept {
  return pinnedPool().enabled();
}

std::uint64_t pinnedBytesKeptForReuse() noexcept {
  const PinnedBlockPool* pool = existingPool.load();
  return pool != nullptr ? pool->keptBytes() : 0;
}

void releaseKeptPinnedBlocks() noexcept {
  if (PinnedBlockPool* pool = existingPool.load()) pool->releaseAll();
}

bool isFileBackedHostBuffer(const void* buffer) noexcept {
  if (buffer == nullptr) return false;
  const BlockHeader* header = headerOf(buffer);
  return header->magic == kMagic && header->kind == BlockKind::FileMapped;
}

bool isPinnedHostBuffer(const void* buffer) noexcept {
  if (buffer == nullptr) return false;
  const BlockHeader* header = headerOf(buffer);
  return header->magic == kMagic && header->kind == BlockKind::MappedPinned;
}

}  // namespace tomowb
