// ThreadRanks: N ranks of a slab run as threads of one test process, talking through shared
// memory (scale::Communicator). Every collective waits for all ranks, then each rank reads every
// rank's contribution in rank order: the same sums on every rank, in a fixed order.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "recon/scale/Communicator.h"

namespace tomowb::test {

// N ranks as threads: every collective waits for all, then each rank reads every rank's
// contribution in rank order (the same sums on every rank, in a fixed order).
class ThreadRanks {
 public:
  explicit ThreadRanks(int size)
      : size_(size), barrier_(size), floats_(std::size_t(size)), doubles_(std::size_t(size)) {}

  class Rank : public scale::Communicator {
   public:
    Rank(ThreadRanks& all, int rank) : all_(all), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return all_.size_; }
    bool collective() const override { return true; }
    bool allOk(bool ok) override {
      return reduce(ok ? 1.0 : 0.0, [](double a, double b) { return std::min(a, b); }) > 0;
    }
    std::int64_t minimum(std::int64_t value) override {
      return static_cast<std::int64_t>(
          reduce(double(value), [](double a, double b) { return std::min(a, b); }));
    }
    double maximum(double value) override {
      return reduce(value, [](double a, double b) { return std::max(a, b); });
    }
    void sum(std::span<float> values) override { all_.sum(rank_, values, all_.floats_); }
    void sum(std::span<double> values) override { all_.sum(rank_, values, all_.doubles_); }
    // A rank that fails ends the others under MPI; here every rank of these tests fails alike.
    void abortAll(const std::string& /*why*/) override { ++all_.aborts; }
    std::string describe() const override { return "thread rank " + std::to_string(rank_); }

   private:
    double reduce(double value, const std::function<double(double, double)>& op) {
      double v = value;
      all_.sum(rank_, std::span<double>(&v, 1), all_.doubles_, op);
      return v;
    }
    ThreadRanks& all_;
    int rank_;
  };

  std::atomic<int> aborts{0};

  // Runs body(communicator) on `size` threads; rethrows the first rank's exception.
  void run(const std::function<void(scale::Communicator&)>& body) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(size_));
    std::vector<std::thread> threads;
    for (int r = 0; r < size_; ++r)
      threads.emplace_back([&, r] {
        Rank rank(*this, r);
        try {
          body(rank);
        } catch (...) {
          errors[std::size_t(r)] = std::current_exception();
        }
      });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  template <typename T>
  void sum(int rank, std::span<T> values, std::vector<std::vector<T>>& slots,
           const std::function<double(double, double)>& op = std::plus<double>()) {
    slots[std::size_t(rank)].assign(values.begin(), values.end());
    barrier_.arrive_and_wait();
    for (std::size_t i = 0; i < values.size(); ++i) {
      double total = slots[0][i];
      for (int r = 1; r < size_; ++r) total = op(total, slots[std::size_t(r)][i]);
      values[i] = static_cast<T>(total);
    }
    barrier_.arrive_and_wait();
  }

  int size_;
  std::barrier<> barrier_;
  std::vector<std::vector<float>> floats_;
  std::vector<std::vector<double>> doubles_;
};

}  // namespace tomowb::test
