// Probe (issue #22, point 6): how fast a slab reaches a file on this machine: pwrite from one
// thread (what PartialFile in recon/scale/SlabRun.cpp does; the kernel lets one write() at a time
// into a file), with and without the space reserved first (fallocate), and a shared mapping
// written by T threads after MADV_POPULATE_WRITE (tried for the slab runs and rejected:
// bench/results/2026-11-27t-slab-io-h100x2.md). And two writers at once into two halves of one
// file, as two ranks do. Build: g++ -O2 -fopenmp -o slab_write_probe slab_write_probe.cpp
// Usage: slab_write_probe FILE MIB [RUNS]   (FILE in tmpfs or on a disk; removed after)
//        slab_write_probe FILE MIB RUNS weak   each of 1, 2, 4 writers writes MIB (weak scaling):
//        into one file (each writer its part) or into a file of its own
#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void writePwrite(int fd, const char* src, size_t offset, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n =
        pwrite(fd, src + done, std::min(bytes - done, size_t{1} << 30), offset + done);
    if (n <= 0) {
      std::perror("pwrite");
      std::exit(1);
    }
    done += size_t(n);
  }
}

void writeMapped(int fd, const char* src, size_t offset, size_t bytes, int threads) {
  char* m = static_cast<char*>(
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)));
  if (m == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  const size_t piece = size_t{8} << 20;
  const long pieces = long((bytes + piece - 1) / piece);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (long k = 0; k < pieces; ++k) {
    const size_t at = size_t(k) * piece, len = std::min(piece, bytes - at);
    if (madvise(m + at, len, MADV_POPULATE_WRITE) != 0) std::perror("madvise");
    std::memcpy(m + at, src + at, len);
  }
  msync(m, bytes, MS_SYNC);
  munmap(m, bytes);
}

// One run: a fresh file of `bytes`, written by `writers` writers (each its half) in `mode`.
double run(const std::string& path, const char* src, size_t bytes, const std::string& mode,
           int threads, int writers, bool reserve) {
  unlink(path.c_str());
  const int fd = open(path.c_str(), O_RDWR | O_CREAT, 0644);
  const auto t = Clock::now();
  if (reserve)
    fallocate(fd, 0, 0, off_t(bytes));
  else if (ftruncate(fd, off_t(bytes)) != 0)
    std::perror("ftruncate");
  std::vector<std::thread> w;
  const size_t part = bytes / size_t(writers) / 4096 * 4096;
  for (int i = 0; i < writers; ++i)
    w.emplace_back([&, i] {
      const size_t off = size_t(i) * part, len = i + 1 == writers ? bytes - off : part;
      if (mode == "pwrite")
        writePwrite(fd, src + off, off, len);
      else
        writeMapped(fd, src + off, off, len, threads);
    });
  for (auto& t2 : w) t2.join();
  fdatasync(fd);
  const double s = since(t);
  close(fd);
  return s;
}
// Weak scaling of writes: `writers` writers each write `bytes` by pwrite, into one shared file
// (each its part, as ranks share NAME.raw.partial) or into a file each.
double runWeak(const std::string& path, const char* src, size_t bytes, int writers, bool fileEach,
               int mappedThreads) {
  std::vector<int> fds;
  for (int i = 0; i < (fileEach ? writers : 1); ++i) {
    const std::string name = path + "." + std::to_string(i);
    unlink(name.c_str());
    fds.push_back(open(name.c_str(), O_RDWR | O_CREAT, 0644));
  }
  const auto t = Clock::now();
  for (int fd : fds)
    if (ftruncate(fd, off_t(bytes) * (fileEach ? 1 : writers)) != 0) std::perror("ftruncate");
  std::vector<std::thread> w;
  for (int i = 0; i < writers; ++i)
    w.emplace_back([&, i] {
      const int fd = fds[fileEach ? size_t(i) : 0];
      const size_t at = fileEach ? 0 : size_t(i) * bytes;
      if (mappedThreads > 0)
        writeMapped(fd, src, at, bytes, mappedThreads);
      else
        writePwrite(fd, src, at, bytes);
      fdatasync(fd);
    });
  for (auto& t2 : w) t2.join();
  const double s = since(t);
  for (size_t i = 0; i < fds.size(); ++i) {
    close(fds[i]);
    unlink((path + "." + std::to_string(i)).c_str());
  }
  return s;
}

int weakScaling(const std::string& path, const char* src, size_t bytes, int runs) {
  std::printf(
      "| writers | files | how | each writes MiB | min / median / max s | GB/s in all (median) "
      "|\n");
  std::printf("|---:|---|---|---:|---|---:|\n");
  for (int mappedThreads : {0, 4})
    for (int writers : {1, 2, 4})
      for (bool fileEach : {false, true}) {
        if (writers == 1 && fileEach) continue;
        std::vector<double> t;
        for (int r = 0; r < runs; ++r)
          t.push_back(runWeak(path, src, bytes, writers, fileEach, mappedThreads));
        std::sort(t.begin(), t.end());
        const double median = t[t.size() / 2];
        std::printf("| %d | %s | %s | %zu | %.3f / %.3f / %.3f | %.1f |\n", writers,
                    fileEach ? "one each" : "one shared",
                    mappedThreads > 0 ? "mapped, 4 threads each" : "pwrite", bytes >> 20, t.front(),
                    median, t.back(), double(bytes) * writers / median / 1e9);
      }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s FILE MIB [RUNS]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const size_t bytes = size_t(std::atoll(argv[2])) << 20;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  std::vector<char> src(bytes, 1);
  if (argc > 4 && std::string(argv[4]) == "weak") return weakScaling(path, src.data(), bytes, runs);
  std::printf(
      "| writers | how | threads each | reserved first | min / median / max s | GB/s (median) |\n");
  std::printf("|---:|---|---:|---|---|---:|\n");
  struct Case {
    int writers;
    const char* mode;
    int threads;
    bool reserve;
  };
  const Case cases[] = {{1, "pwrite", 1, true},  {1, "pwrite", 1, false}, {1, "mapped", 1, false},
                        {1, "mapped", 4, false}, {1, "mapped", 8, false}, {1, "mapped", 16, false},
                        {2, "pwrite", 1, true},  {2, "pwrite", 1, false}, {2, "mapped", 8, false},
                        {2, "mapped", 16, false}};
  for (const Case& c : cases) {
    std::vector<double> t;
    for (int r = 0; r < runs; ++r)
      t.push_back(run(path, src.data(), bytes, c.mode, c.threads, c.writers, c.reserve));
    std::sort(t.begin(), t.end());
    const double median = t[t.size() / 2];
    std::printf("| %d | %s | %d | %s | %.3f / %.3f / %.3f | %.1f |\n", c.writers, c.mode, c.threads,
                c.reserve ? "yes" : "no", t.front(), median, t.back(),
                double(bytes) / median / 1e9);
  }
  unlink(path.c_str());
  return 0;
}
