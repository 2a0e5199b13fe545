// Communicator: the ranks of a run and the few collective steps a slab run needs (issue #22,
// point 3). Two kinds:
//  - LocalCommunicator: ranks that do not talk (processes started by hand with --rank/--ranks,
//    or by a launcher without the MPI library). FDK needs no communication; each rank takes a
//    fixed share of the slabs and the rank that finds every slab in puts the output in place.
//  - MpiCommunicator (recon/mpi/, when the build has Open MPI): the ranks agree on the plan and on
//    what an earlier run finished before anyone writes (a resume is balanced over the slabs
//    left), every rank learns if another failed, and rank 0 puts the output in place after all.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tomowb::scale {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // True when the ranks talk: the collective calls below then wait for every rank.
  virtual bool collective() const = 0;
  // Collective: true when `ok` is true on every rank (a barrier that carries a verdict).
  virtual bool allOk(bool ok) = 0;
  // Collective: the smallest `value` of all ranks.
  virtual std::int64_t minimum(std::int64_t value) = 0;
  // Collective: the largest `value` of all ranks.
  virtual double maximum(double value) = 0;
  // Collective: every element summed over the ranks, in place (iterative slab runs: the ray sums
  // of detector rows that several ranks' slabs project onto, and the residual norms).
  virtual void sum(std::span<float> values) = 0;
  virtual void sum(std::span<double> values) = 0;
  // Ends every rank of the run, this one included, after a failure in the middle of a phase in
  // which the others wait for this rank (an iterative run's exchange): they would wait forever.
  // Ranks that do not talk have nobody waiting: nothing happens.
  virtual void abortAll(const std::string& why) = 0;
  // "Open MPI 4.1.4, 4 ranks" or "rank 1 of 4 (no communication)".
  virtual std::string describe() const = 0;
};

class LocalCommunicator : public Communicator {
 public:
  LocalCommunicator(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool collective() const override { return false; }
  bool allOk(bool ok) override { return ok; }
  std::int64_t minimum(std::int64_t value) override { return value; }
  double maximum(double value) override { return value; }
  void sum(std::span<float> /*values*/) override {}
  void sum(std::span<double> /*values*/) override {}
  void abortAll(const std::string& /*why*/) override {}
  std::string describe() const override {
    return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + " (no communication)";
  }

 private:
  int rank_, size_;
};

}  // namespace tomowb::scale
