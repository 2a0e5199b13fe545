// MpiCommunicator: scale::Communicator over MPI_COMM_WORLD (Debian's Open MPI; issue #22, point
// 3). Built only when CMake finds MPI (target tomowb_mpi). MPI errors are returned, not fatal,
// so a lost rank becomes an Error naming MPI's reason. The public header needs no MPI header.
#pragma once

#include <memory>
#include <string>

#include "recon/scale/Communicator.h"

namespace tomowb::mpi {

class MpiCommunicator : public scale::Communicator {
 public:
  // MPI_Init_thread (funneled: only the calling thread talks). Throws Error when it fails.
  MpiCommunicator();
  ~MpiCommunicator() override;  // MPI_Finalize
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  // True when mpirun (Open MPI, or a PMI launcher such as MPICH's or srun) started this process:
  // only then is MPI initialised (a singleton start would need a network for nothing).
  static bool launchedByMpirun();

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool collective() const override { return true; }
  bool allOk(bool ok) override;
  std::int64_t minimum(std::int64_t value) override;
  double maximum(double value) override;
  void sum(std::span<float> values) override;
  void sum(std::span<double> values) override;
  void abortAll(const std::string& why) override;  // MPI_Abort
  std::string describe() const override;

 private:
  int rank_ = 0, size_ = 1;
  std::string library_;
};

}  // namespace tomowb::mpi
