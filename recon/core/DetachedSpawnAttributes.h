// posix_spawn attributes for a helper program that must not share this process's signals: its
// own process group (Ctrl-C at a terminal, or a job's cancel sent to the group, reaches this
// process, whose handler cancels the run, and not the helper), no blocked signals, and the
// default action for SIGPIPE, SIGINT, SIGTERM and SIGHUP (a handler or an "ignore" of ours is not
// inherited). Used by the HDF5 reader (recon/io/Hdf5Volume.cpp) and the cluster commands
// (recon/cluster/ExternalCommand.cpp).
#pragma once

#include <spawn.h>

#include <csignal>

namespace tomowb {

class DetachedSpawnAttributes {
 public:
  DetachedSpawnAttributes() {
    posix_spawnattr_init(&attributes_);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes_, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (const int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, signal);
    posix_spawnattr_setsigdefault(&attributes_, &defaults);
    posix_spawnattr_setpgroup(&attributes_, 0);
    posix_spawnattr_setflags(
        &attributes_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  ~DetachedSpawnAttributes() { posix_spawnattr_destroy(&attributes_); }
  DetachedSpawnAttributes(const DetachedSpawnAttributes&) = delete;
  DetachedSpawnAttributes& operator=(const DetachedSpawnAttributes&) = delete;

  const posix_spawnattr_t* get() const noexcept { return &attributes_; }

 private:
  posix_spawnattr_t attributes_;
};

}  // namespace tomowb
