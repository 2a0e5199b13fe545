// PendingVolume: a host Volume allocated on a thread of its own while the caller starts work that
// does not need it yet (issue #22, point 1). Allocating a large volume means faulting in, zeroing
// and pinning gigabytes (HostMemory.h: about 0.18 s for 4 GiB on the H100 machine); a GPU FDK
// spends that time uploading, filtering and backprojecting, and needs the host volume only when
// its first slab comes back. get() waits for the allocation and rethrows its failure
// (ParameterError, OutOfMemoryError); it may be called from several threads at once.
#pragma once

#include <future>
#include <mutex>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"

namespace tomowb {

class PendingVolume {
 public:
  // Checks the grid and the host memory at once (throwing what Volume's constructor would), then
  // starts the allocation of a zero-filled volume on `grid` (on the calling thread if no thread
  // can be started).
  explicit PendingVolume(const VolumeGrid& grid);
  // An already allocated volume (taken over): get() returns it at once.
  explicit PendingVolume(Volume&& volume);
  ~PendingVolume();  // waits for a running allocation
  PendingVolume(const PendingVolume&) = delete;
  PendingVolume& operator=(const PendingVolume&) = delete;

  const VolumeGrid& grid() const noexcept { return grid_; }
  Volume& get();
  bool ready() const;  // get() would not wait
  // Seconds the allocation took (0 until it finished) and the longest any get() waited for it.
  double allocationSeconds() const;
  double waitedSeconds() const;
  // The volume, moved out (waits first).
  Volume take();

 private:
  VolumeGrid grid_;
  Volume volume_;
  std::shared_future<void> allocated_;
  mutable std::mutex mutex_;
  double allocationSeconds_ = 0;  // under mutex_
  double waitedSeconds_ = 0;      // under mutex_
};

}  // namespace tomowb
