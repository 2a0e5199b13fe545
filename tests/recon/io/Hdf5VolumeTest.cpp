// HDF5 volumes (issue #22, point 2): written and read back bit for bit with their grid; the
// samples lie at the offset the slab runs write to; damaged and foreign files are clear errors.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/Hdf5Volume.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"

namespace tomowb::io {
namespace {

namespace fs = std::filesystem;

TEST(Hdf5Volume, PathsAreRecognisedWhateverTheCase) {
  EXPECT_TRUE(isHdf5Path("a/b.h5"));
  EXPECT_TRUE(isHdf5Path("b.HDF5"));
  EXPECT_FALSE(isHdf5Path("b.raw"));
  EXPECT_FALSE(isHdf5Path("h5"));
  EXPECT_EQ(dataFormatForPath("x.h5"), DataFormat::Hdf5);
  EXPECT_EQ(isFormatAvailable(DataFormat::Hdf5), hdf5VolumesSupported());
}

#if TOMOWB_HAVE_HDF5
TEST(Hdf5Volume, RoundTripKeepsEverySampleAndTheGrid) {
  test::TempDir dir;
  std::mt19937 rng(static_cast<std::uint32_t>(test::randomSeed()));
  std::normal_distribution<float> value(0.0f, 1.0f);
  Volume v({7, 5, 3}, Eigen::Vector3d(0.5, 0.25, 2.0), Eigen::Vector3d(-1.5, 2.0, 3.25));
  for (float& x : v.voxels()) x = value(rng);
  const fs::path path = dir / "v.h5";
  writeVolume(path, v);
  EXPECT_FALSE(fs::exists(path.string() + ".partial"));
  const Volume back = readVolume(path);
  EXPECT_EQ(back.shape(), v.shape());
  EXPECT_EQ(back.voxelSizeMm(), v.voxelSizeMm());
  EXPECT_EQ(back.originMm(), v.originMm());
  EXPECT_TRUE(std::equal(back.voxels().begin(), back.voxels().end(), v.voxels().begin()));
  const FileSummary f = describeFile(path);
  EXPECT_EQ(f.sizeX, 7);
  EXPECT_EQ(f.sizeZ, 3);
  EXPECT_EQ(f.kind, FileKind::Volume);
}

// Out of core (issue #22, point 2): any box of slices and rows reads back as that part of the
// volume, from a contiguous file and from a chunked, compressed one (which has no sample offset
// and reads back whole too); a box outside the dataset is a ParameterError naming the file.
TEST(Hdf5Volume, ABoxOfSlicesAndRowsReadsThatPartOfContiguousAndChunkedFiles) {
  test::TempDir dir;
  std::mt19937 rng(static_cast<std::uint32_t>(test::randomSeed()));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Volume v({9, 7, 5}, Eigen::Vector3d(0.5, 0.5, 1.0), Eigen::Vector3d::Zero());
  for (float& x : v.voxels()) x = value(rng);
  writeHdf5Volume(dir / "contiguous.h5", v);
  writeHdf5VolumeChunked(dir / "chunked.h5", v);
  EXPECT_TRUE(readHdf5VolumeLayout(dir / "contiguous.h5").contiguousOffset.has_value());
  EXPECT_FALSE(readHdf5VolumeLayout(dir / "chunked.h5").contiguousOffset.has_value());
  const Volume whole = readVolume(dir / "chunked.h5");
  EXPECT_TRUE(std::equal(whole.voxels().begin(), whole.voxels().end(), v.voxels().begin()));
  for (const char* name : {"contiguous.h5", "chunked.h5"}) {
    SCOPED_TRACE(name);
    for (const Hdf5Box box :
         {Hdf5Box{0, 5, 0, 7}, Hdf5Box{1, 4, 2, 3}, Hdf5Box{4, 5, 6, 7}, Hdf5Box{2, 2, 0, 7}}) {
      std::vector<float> got(static_cast<std::size_t>((box.z1 - box.z0) * (box.y1 - box.y0) * 9),
                             -99.0f);
      readHdf5VolumeBox(dir / name, box, got);
      std::size_t i = 0;
      for (std::int64_t z = box.z0; z < box.z1; ++z)
        for (std::int64_t y = box.y0; y < box.y1; ++y)
          for (std::int64_t x = 0; x < 9; ++x, ++i)
            ASSERT_EQ(got[i], v.at(x, y, z))
                << "box " << box.z0 << ".." << box.z1 << " x " << box.y0 << ".." << box.y1 << " at "
                << x << "," << y << "," << z;
    }
    std::vector<float> sink(1000);
    for (const Hdf5Box bad :
         {Hdf5Box{0, 6, 0, 7}, Hdf5Box{-1, 2, 0, 7}, Hdf5Box{0, 5, 3, 3}, Hdf5Box{0, 5, 0, 8}}) {
      try {
        readHdf5VolumeBox(dir / name, bad, sink);
        ADD_FAILURE() << "a box outside the dataset was read";
      } catch (const ParameterError& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
    }
    // A buffer sized for another file (this one changed since): refused before a sample is read.
    std::vector<float> shortBuffer(2 * 7 * 8);
    try {
      readHdf5VolumeBox(dir / name, Hdf5Box{0, 2, 0, 7}, shortBuffer);
      ADD_FAILURE() << "a box was read into a buffer of another size";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("changed"), std::string::npos) << e.what();
    }
  }
}

TEST(Hdf5Volume, SamplesWrittenAtTheOffsetAreWhatTheReaderSees) {
  test::TempDir dir;
  const VolumeGrid grid = VolumeGrid::centred({4, 3, 2}, Eigen::Vector3d::Ones());
  const fs::path path = dir / "o.h5";
  const std::uint64_t offset = createHdf5VolumeFile(path, grid);
  EXPECT_EQ(hdf5VolumeDataOffset(path, grid), offset);
  EXPECT_GE(fs::file_size(path), offset + 24 * 4);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset + 12 * 4));  // slice z = 1
    for (int i = 0; i < 12; ++i) {
      const float x = float(i) + 0.5f;
      f.write(reinterpret_cast<const char*>(&x), 4);
    }
  }
  const Volume v = readHdf5Volume(path);
  EXPECT_EQ(v.at(0, 0, 0), 0.0f) << "never written: zero";
  EXPECT_EQ(v.at(0, 0, 1), 0.5f);
  EXPECT_EQ(v.at(3, 2, 1), 11.5f);
  // Another grid is refused by name.
  try {
    (void)hdf5VolumeDataOffset(path, VolumeGrid::centred({4, 3, 3}, Eigen::Vector3d::Ones()));
    FAIL() << "another grid was accepted";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("o.h5"), std::string::npos) << e.what();
  }
}

// A read while other threads of this process are inside libhdf5 (a writer: libhdf5 is built
// thread-safe and holds its lock through a call) and inside malloc (a busy allocator). A reader
// child forked without exec inherited those locks held and hung for ever (CI, 2026-11-28: a slab
// run's row read under ASan); a reader that execs a fresh program does not.
TEST(Hdf5Volume, ReadsFinishWhileOtherThreadsAreInsideLibhdf5AndMalloc) {
  test::TempDir dir;
  Volume v({64, 64, 16}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  std::mt19937 rng(static_cast<std::uint32_t>(test::randomSeed()));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& x : v.voxels()) x = value(rng);
  writeHdf5VolumeChunked(dir / "read.h5", v);
  std::atomic<bool> stop{false}, writerFailed{false};
  std::thread writer([&] {
    try {
      for (int i = 0; !stop; ++i)
        writeHdf5VolumeChunked(dir / ("w" + std::to_string(i % 2) + ".h5"), v);
    } catch (const std::exception&) {
      writerFailed = true;
    }
  });
  std::thread allocator([&] {
    std::vector<std::unique_ptr<std::vector<char>>> blocks(64);
    for (std::size_t i = 0; !stop; ++i)
      blocks[i % blocks.size()] = std::make_unique<std::vector<char>>(1 + i % 4096);
  });
  auto reads = std::async(std::launch::async, [&] {
    std::vector<float> box(static_cast<std::size_t>(4 * 64 * 64));
    for (int i = 0; i < 40; ++i) {
      readHdf5VolumeBox(dir / "read.h5", Hdf5Box{i % 12, i % 12 + 4, 0, 64}, box);
      if (box[0] != v.at(0, 0, i % 12)) return false;
    }
    return true;
  });
  if (reads.wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: 40 HDF5 reads did not finish in 120 s: a reader child hung\n");
    // The hung read cannot be joined: end the children (they hold ctest's output pipe), then us.
    for (const fs::directory_entry& task : fs::directory_iterator("/proc/self/task")) {
      std::ifstream children(task.path() / "children");
      for (pid_t child = 0; children >> child;) ::kill(child, SIGKILL);
    }
    std::_Exit(1);
  }
  stop = true;
  writer.join();
  allocator.join();
  EXPECT_TRUE(reads.get()) << "a box read back other samples";
  EXPECT_FALSE(writerFailed) << "the writer thread failed: the test did not test";
}

// Sets an environment variable for a scope, and puts back what was there.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const char* name) : name_(name) {
    if (const char* value = std::getenv(name)) saved_ = value;
  }
  ~ScopedEnvironment() {
    if (saved_)
      ::setenv(name_, saved_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  void set(const std::string& value) { ::setenv(name_, value.c_str(), 1); }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// The reader program (recon/io/Hdf5ReaderMain.h) missing, failing, crashing, stopped or not ours:
// an error naming the file being read, never a hang or a silent empty volume; only a crash says
// the file is damaged.
TEST(Hdf5Volume, AMissingFailingCrashingOrForeignReaderProgramIsAClearErrorNamingTheFile) {
  test::TempDir dir;
  Volume v({4, 4, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  const fs::path file = dir / "fine.h5";
  writeHdf5Volume(file, v);
  const auto script = [&](const std::string& name, const std::string& body) {
    const fs::path path = dir / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  };
  auto reader = std::make_unique<ScopedEnvironment>("TOMOWB_HDF5_READER");
  const auto expectError = [&](const std::string& program, const std::string& words) {
    SCOPED_TRACE(program);
    reader->set(program);
    try {
      (void)readHdf5Volume(file);
      ADD_FAILURE() << "read with the reader " << program;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("fine.h5"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expectError((dir / "no-such-reader").string(), "TOMOWB_HDF5_READER");
  expectError("/bin/false", "exit status 1");
  expectError(script("crashing", "kill -SEGV $$"), "is damaged: the HDF5 library crashed");
  expectError(script("stopped", "kill -TERM $$"), "stopped by signal 15");
  expectError(script("foreign", "head -c 4096 /dev/zero | tr '\\0' x >&3"), "something else");
  reader.reset();  // the environment as it was: our reader again
  EXPECT_EQ(readHdf5Volume(file).shape(), v.shape());
}

TEST(Hdf5Volume, DamagedOrForeignFilesAreClearErrorsNamingTheFile) {
  test::TempDir dir;
  const fs::path notHdf5 = dir / "text.h5";
  std::ofstream(notHdf5) << "not an HDF5 file";
  EXPECT_THROW((void)readVolume(notHdf5), FormatError);
  EXPECT_THROW((void)readVolume(dir / "missing.h5"), IoError);
  // A truncated file: the samples end past the file's end.
  Volume v({16, 16, 16}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  const fs::path cut = dir / "cut.h5";
  writeVolume(cut, v);
  fs::resize_file(cut, fs::file_size(cut) - 1000);
  try {
    (void)readVolume(cut);
    FAIL() << "a truncated file was read";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.h5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}
#endif

}  // namespace
}  // namespace tomowb::io
