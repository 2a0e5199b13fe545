#include "recon/core/PendingVolume.h"

#include <algorithm>
#include <chrono>
#include <system_error>
#include <utility>

#include "recon/core/SecondsSince.h"

namespace tomowb {

PendingVolume::PendingVolume(const VolumeGrid& grid) : grid_(grid) {
  // A bad grid or one host memory cannot hold fails here, before any device work starts.
  (void)Volume::checkAllocation(grid.shape, grid.voxelSizeMm, grid.originMm);
  auto allocate = [this] {
    const auto start = std::chrono::steady_clock::now();
    volume_ = Volume(grid_.shape, grid_.voxelSizeMm, grid_.originMm);
    const double seconds = secondsSince(start);
    std::lock_guard lock(mutex_);
    allocationSeconds_ = seconds;
  };
  try {
    allocated_ = std::async(std::launch::async, allocate).share();
  } catch (const std::system_error&) {  // no thread to be had: allocate here
    std::promise<void> done;
    try {
      allocate();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
    allocated_ = done.get_future().share();
  }
}

PendingVolume::PendingVolume(Volume&& volume)
    : grid_(VolumeGrid::of(volume)), volume_(std::move(volume)) {
  std::promise<void> done;
  done.set_value();
  allocated_ = done.get_future().share();
}

PendingVolume::~PendingVolume() {
  if (allocated_.valid()) allocated_.wait();
}

Volume& PendingVolume::get() {
  const std::shared_future<void> allocated = allocated_;  // each thread its own copy
  if (allocated.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    const auto start = std::chrono::steady_clock::now();
    allocated.wait();
    const double waited = secondsSince(start);
    std::lock_guard lock(mutex_);
    waitedSeconds_ = std::max(waitedSeconds_, waited);
  }
  allocated.get();  // rethrows the allocation's failure
  return volume_;
}

bool PendingVolume::ready() const {
  return allocated_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

double PendingVolume::allocationSeconds() const {
  std::lock_guard lock(mutex_);
  return allocationSeconds_;
}

double PendingVolume::waitedSeconds() const {
  std::lock_guard lock(mutex_);
  return waitedSeconds_;
}

Volume PendingVolume::take() {
  return std::move(get());
}

}  // namespace tomowb
