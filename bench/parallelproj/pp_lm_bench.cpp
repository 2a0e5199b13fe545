// pp_lm_bench — our driver that measures the peer parallelproj (github
// KUL-recon-lab/libparallelproj, Apache-2.0; commit in bench/parallelproj/PARALLELPROJ_COMMIT), a
// TOF Joseph projector along lines of response, on issue #20's list-mode case: TOF list-mode ML-EM
// of our simulated events (our list-mode file, the first N prompts) on our 144x144x48 grid at 4 mm,
// device-resident float32, in the same device call as our DIRECT benchmark. parallelproj is called
// only through its public C API (parallelproj.h) and is built from its public source by
// build-parallelproj.sh; none of its code is in this repository.
//
// One ML-EM pass (timed with CUDA events on the default stream, where parallelproj launches too):
//   forward  q_e = joseph3d_tof_lm_fwd(x) for every event e (its LOR, its TOF bin)
//   ratio    r_e = 1 / (q_e + randoms per TOF bin / a_e)        (our kernel)
//   back     b   = joseph3d_tof_lm_back(r)                      (parallelproj; float atomics)
//   update   x  <- x * b / (s / subsets)                         (our kernel)
// with s the sensitivity: parallelproj's non-TOF back-projection (joseph3d_back) of the
// attenuation factors a_i over every LOR the scanner accepts (computed once, not timed in the
// pass). Sum over the TOF bins of parallelproj's list-mode forward = its non-TOF forward (checked
// in the self-check), so this s is the normalisation that goes with its list-mode projector.
//
// Usage: pp_lm_bench --listmode FILE --out RESULT.md [options]   (--help lists them)
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallelproj.h"
#include "pp_common.h"
#include "pp_ops.h"
#include "pp_scanner.h"
#include "pp_selfcheck.h"

#ifndef PP_COMMIT
#define PP_COMMIT "unknown"
#endif

namespace ppbench {
namespace {

using nlohmann::json;

// ------------------------------------------------------------------------------------------------
// Small helpers

std::string format(const char* fmt, ...) {
  char text[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  return text;
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "pp_lm_bench: %s\n", message.c_str());
  std::exit(1);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double minOf(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}
double maxOf(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) parts.push_back(item);
  return parts;
}

std::string countLabel(std::int64_t n) {
  // 10000000 -> "1e7", 430000000 -> "4.3e8", others as %.3g
  const int exponent = n > 0 ? int(std::floor(std::log10(double(n)))) : 0;
  const double mantissa = double(n) / std::pow(10.0, exponent);
  if (std::fabs(mantissa * 10 - std::round(mantissa * 10)) < 1e-9)
    return mantissa == std::floor(mantissa) ? format("%.0fe%d", mantissa, exponent)
                                            : format("%.1fe%d", mantissa, exponent);
  return format("%.4g", double(n));
}

// mkdir -p
void makeDirs(const std::string& path) {
  for (std::size_t at = 1; at <= path.size(); ++at)
    if (at == path.size() || path[at] == '/') mkdir(path.substr(0, at).c_str(), 0755);
}

std::string isoNow() {
  const std::time_t t = std::time(nullptr);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

// A device buffer owned by the driver.
template <typename T>
struct Buffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  Buffer() = default;
  explicit Buffer(std::size_t n) : ptr(static_cast<T*>(ops::allocate(n * sizeof(T)))), count(n) {}
  ~Buffer() { ops::release(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : ptr(o.ptr), count(o.count) {
    o.ptr = nullptr;
    o.count = 0;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(count, o.count);
    return *this;
  }
  std::size_t bytes() const { return count * sizeof(T); }
  void upload(const std::vector<T>& host) {
    ops::copyToDevice(ptr, host.data(), host.size() * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(count);
    ops::copyToHost(host.data(), ptr, bytes());
    return host;
  }
};
template <typename T>
Buffer<T> deviceCopy(const std::vector<T>& host) {
  Buffer<T> b(host.size());
  b.upload(host);
  return b;
}

// ------------------------------------------------------------------------------------------------
// Options

struct Options {
  std::string listmode;
  std::string out;
  std::string outDir;
  std::vector<std::int64_t> counts = {10000000, 100000000, 430000000};
  bool allEvents = false;
  int reps = 5;
  int iterations = 10;
  std::set<int> save;                       // empty: default
  std::vector<std::int64_t> qualityCounts;  // empty: every count
  int subsets = 1;
  int nx = 144, ny = 144, nz = 48;
  double voxelMm = 4.0;
  float numSigmas = 3.0f;
  int threadsPerBlock = 64;
  int device = 0;
  bool randoms = true;
  bool attenuation = true;
  WaterCylinder water;
  std::int64_t sensitivityBatch = std::int64_t(1) << 25;
  bool selfCheck = true;
  int selfCheckEvents = 20000;
  bool determinism = true;
  std::string scannerPreset = "penn-labr3";  // when there is no list-mode file
  std::string commandLine;
};

const char* kUsage =
    "pp_lm_bench --listmode FILE --out RESULT.md [options]\n"
    "  --listmode FILE        our list-mode file (TWBPETLM v1); the first N prompts are used\n"
    "  --events LIST          event counts, default 1e7,1e8,4.3e8 ('all': every prompt)\n"
    "  --reps N               timed passes per count after one warm-up (default 5)\n"
    "  --iterations N         ML-EM iterations for the images (default 10; 0: none)\n"
    "  --save LIST            iterations whose image is written (default 1,2,5,10,...,N)\n"
    "  --quality-events LIST  counts with image-quality runs (default: every count)\n"
    "  --subsets S            list-mode OSEM subsets (contiguous blocks of events; default 1)\n"
    "  --grid NX,NY,NZ        default 144,144,48     --voxel MM  default 4 (centred grid)\n"
    "  --num-sigmas F         TOF kernel truncation (default 3)\n"
    "  --threads-per-block N  parallelproj's launch size (default 64, its own default)\n"
    "  --randoms uniform|none uniform: delayed count / (accepted LORs x window bins) per bin\n"
    "  --attenuation analytic|none   the water cylinder's exp(-mu chord) (default analytic)\n"
    "  --water R,L,MU         cylinder radius mm, length mm, mu 1/mm (default 175,180,0.0096)\n"
    "  --sensitivity-batch N  LORs per non-TOF back-projection call (default 33554432)\n"
    "  --no-self-check | --self-check-events N (default 20000) | --no-determinism\n"
    "  --scanner-preset NAME  penn-labr3 | ring-930 (only without --listmode: self-check only)\n"
    "  --device N             CUDA device (default 0)\n"
    "  --out FILE.md          the Markdown result (pp_lm_summary.json is written beside it);\n"
    "  --out-dir DIR          the images and their JSON (default: the folder of --out)\n";

std::int64_t parseCount(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= 1) || v > 9.2e18)
    fail("bad event count '" + text + "'");
  return static_cast<std::int64_t>(std::llround(v));
}

Options parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 0; i < argc; ++i) o.commandLine += (i ? " " : "") + std::string(argv[i]);
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) fail(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--listmode") {
      o.listmode = value(i);
    } else if (a == "--out") {
      o.out = value(i);
    } else if (a == "--out-dir") {
      o.outDir = value(i);
    } else if (a == "--events") {
      const std::string v = value(i);
      o.counts.clear();
      if (v == "all") {
        o.allEvents = true;
      } else {
        for (const std::string& p : split(v, ',')) o.counts.push_back(parseCount(p));
      }
    } else if (a == "--reps") {
      o.reps = std::max(1, std::atoi(value(i).c_str()));
    } else if (a == "--iterations") {
      o.iterations = std::max(0, std::atoi(value(i).c_str()));
    } else if (a == "--save") {
      for (const std::string& p : split(value(i), ',')) o.save.insert(std::atoi(p.c_str()));
    } else if (a == "--quality-events") {
      for (const std::string& p : split(value(i), ',')) o.qualityCounts.push_back(parseCount(p));
    } else if (a == "--subsets") {
      o.subsets = std::max(1, std::atoi(value(i).c_str()));
    } else if (a == "--grid") {
      const auto p = split(value(i), ',');
      if (p.size() != 3) fail("--grid needs NX,NY,NZ");
      o.nx = std::atoi(p[0].c_str());
      o.ny = std::atoi(p[1].c_str());
      o.nz = std::atoi(p[2].c_str());
      if (o.nx < 1 || o.ny < 1 || o.nz < 1) fail("--grid: sizes must be >= 1");
    } else if (a == "--voxel") {
      o.voxelMm = std::atof(value(i).c_str());
      if (!(o.voxelMm > 0)) fail("--voxel must be > 0");
    } else if (a == "--num-sigmas") {
      o.numSigmas = float(std::atof(value(i).c_str()));
    } else if (a == "--threads-per-block") {
      o.threadsPerBlock = std::atoi(value(i).c_str());
    } else if (a == "--randoms") {
      const std::string v = value(i);
      if (v != "uniform" && v != "none") fail("--randoms: uniform or none");
      o.randoms = v == "uniform";
    } else if (a == "--attenuation") {
      const std::string v = value(i);
      if (v != "analytic" && v != "none") fail("--attenuation: analytic or none");
      o.attenuation = v == "analytic";
    } else if (a == "--water") {
      const auto p = split(value(i), ',');
      if (p.size() != 3) fail("--water needs R,L,MU");
      o.water.radiusMm = float(std::atof(p[0].c_str()));
      o.water.halfLengthMm = float(0.5 * std::atof(p[1].c_str()));
      o.water.muPerMm = float(std::atof(p[2].c_str()));
    } else if (a == "--sensitivity-batch") {
      o.sensitivityBatch = std::max<std::int64_t>(1 << 20, parseCount(value(i)));
    } else if (a == "--no-self-check") {
      o.selfCheck = false;
    } else if (a == "--self-check-events") {
      o.selfCheckEvents = std::max(100, std::atoi(value(i).c_str()));
    } else if (a == "--no-determinism") {
      o.determinism = false;
    } else if (a == "--scanner-preset") {
      o.scannerPreset = value(i);
    } else if (a == "--device") {
      o.device = std::atoi(value(i).c_str());
    } else {
      fail("unknown option '" + a + "' (--help lists them)");
    }
  }
  if (o.out.empty()) fail("--out FILE.md is required (--help lists the options)");
  if (o.outDir.empty()) {
    const auto slash = o.out.find_last_of('/');
    o.outDir = slash == std::string::npos ? "." : o.out.substr(0, slash);
  }
  if (!o.attenuation) o.water.muPerMm = 0.0f;
  std::sort(o.counts.begin(), o.counts.end());
  o.counts.erase(std::unique(o.counts.begin(), o.counts.end()), o.counts.end());
  return o;
}

// ------------------------------------------------------------------------------------------------
// Our list-mode file (recon/pet/ListModeFile.h): "TWBPETLM", uint32 version 1, uint32 H, H bytes
// of JSON, zero padding to a multiple of 16, then 12-byte records.

struct ListModeInfo {
  json header;
  ScannerSpec scanner;
  std::uint64_t dataOffset = 0;
  std::int64_t events = 0, prompts = 0, delayed = 0;
};

ScannerSpec scannerFromJson(const json& s) {
  ScannerSpec sc;
  auto number = [&](const char* key, double& target) {
    if (s.contains(key)) target = s.at(key).get<double>();
  };
  auto integer = [&](const char* key, int& target) {
    if (s.contains(key)) target = s.at(key).get<int>();
  };
  if (s.contains("name")) sc.name = s.at("name").get<std::string>();
  if (s.contains("layout")) {
    const std::string layout = s.at("layout").get<std::string>();
    if (layout != "flat-modules" && layout != "cylinder") fail("scanner.layout '" + layout + "'");
    sc.flatModules = layout == "flat-modules";
  }
  number("radiusMm", sc.radiusMm);
  integer("modules", sc.modules);
  integer("crystalsPerRing", sc.crystalsPerRing);
  integer("rings", sc.rings);
  number("crystalPitchMm", sc.crystalPitchMm);
  number("ringPitchMm", sc.ringPitchMm);
  number("meanDoiMm", sc.meanDoiMm);
  number("axialAcceptanceDeg", sc.axialAcceptanceDeg);
  number("tofFwhmPs", sc.tofFwhmPs);
  number("tofLsbPs", sc.tofLsbPs);
  number("coincidenceWindowPs", sc.coincidenceWindowPs);
  number("transaxialFovMm", sc.transaxialFovMm);
  if (!sc.flatModules) sc.modules = 1;
  if (sc.crystalsPerRing < 2 || sc.crystalsPerRing > 65535 || sc.rings < 1 || sc.rings > 65535 ||
      (sc.flatModules && (sc.modules < 3 || sc.crystalsPerRing % sc.modules != 0)))
    fail("the file's scanner has bad sizes");
  return sc;
}

ScannerSpec scannerPreset(const std::string& name) {
  ScannerSpec s;  // penn-labr3
  if (name == "penn-labr3") return s;
  if (name == "ring-930") {
    s.name = "ring-930";
    s.flatModules = false;
    s.modules = 1;
    s.crystalPitchMm = 2 * 3.14159265358979323846 * s.radiusMm / s.crystalsPerRing;
    return s;
  }
  fail("unknown --scanner-preset '" + name + "' (penn-labr3, ring-930)");
}

ListModeInfo openListMode(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open " + path);
  char preamble[16];
  if (!in.read(preamble, 16)) fail(path + ": shorter than the 16-byte preamble");
  if (std::memcmp(preamble, "TWBPETLM", 8) != 0) fail(path + " is not a tomowb list-mode file");
  std::uint32_t version = 0, headerBytes = 0;
  std::memcpy(&version, preamble + 8, 4);
  std::memcpy(&headerBytes, preamble + 12, 4);
  if (version != 1) fail(path + ": list-mode version " + std::to_string(version) + ", not 1");
  if (headerBytes == 0 || headerBytes > (1u << 20)) fail(path + ": bad header length");
  std::string text(headerBytes, '\0');
  if (!in.read(text.data(), headerBytes)) fail(path + ": truncated JSON header");
  ListModeInfo info;
  try {
    info.header = json::parse(text);
  } catch (const std::exception& e) {
    fail(path + ": JSON header: " + e.what());
  }
  if (!info.header.contains("scanner")) fail(path + ": the header has no scanner");
  info.scanner = scannerFromJson(info.header.at("scanner"));
  if (info.header.contains("tofLsbPs"))
    info.scanner.tofLsbPs = info.header.at("tofLsbPs").get<double>();
  info.events = info.header.value("events", std::int64_t(0));
  info.prompts = info.header.value("prompts", std::int64_t(0));
  info.delayed = info.header.value("delayed", std::int64_t(0));
  info.dataOffset = (16 + std::uint64_t(headerBytes) + 15) / 16 * 16;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) fail("cannot stat " + path);
  const std::uint64_t recordBytes = std::uint64_t(st.st_size) - info.dataOffset;
  if (recordBytes % 12 != 0 || std::int64_t(recordBytes / 12) != info.events)
    fail(path + ": the header says " + std::to_string(info.events) +
         " records but the file holds " + std::to_string(recordBytes) + " bytes of records");
  return info;
}

// The first `maxPrompts` prompts of the file, converted on the device into parallelproj's
// arguments; delayedBefore[k] = delayed records before prompt number counts[k].
struct DeviceEvents {
  Buffer<float> start, end;  // 3 floats per event, (z, y, x)
  Buffer<short> bins;
  Buffer<float> inverseAttenuation;
  std::int64_t count = 0;
  std::int64_t recordsRead = 0;
  std::vector<std::int64_t> delayedBefore;
  double readSeconds = 0, convertSeconds = 0;
};

DeviceEvents loadEvents(const std::string& path, const ListModeInfo& info,
                        const std::vector<std::int64_t>& counts, const EventTables& tables) {
  DeviceEvents d;
  const std::int64_t maxPrompts = counts.back();
  d.start = Buffer<float>(3 * std::size_t(maxPrompts));
  d.end = Buffer<float>(3 * std::size_t(maxPrompts));
  d.bins = Buffer<short>(std::size_t(maxPrompts));
  d.inverseAttenuation = Buffer<float>(std::size_t(maxPrompts));
  d.delayedBefore.assign(counts.size(), 0);

  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("cannot open " + path);
  if (std::fseek(f, long(info.dataOffset), SEEK_SET) != 0) fail(path + ": seek failed");
  constexpr std::size_t kChunk = std::size_t(1) << 22;  // records (48 MiB)
  std::vector<RawEvent> chunk(kChunk);
  auto* pinned = static_cast<RawEvent*>(ops::allocatePinned(kChunk * sizeof(RawEvent)));
  Buffer<RawEvent> raw(kChunk);
  const ScannerSpec& s = info.scanner;
  const int maxLsb = s.tofHalfBins();
  std::int64_t prompts = 0, delayed = 0, index = 0;
  std::size_t nextCount = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double convertSeconds = 0;
  while (prompts < maxPrompts) {
    const std::size_t got = std::fread(chunk.data(), sizeof(RawEvent), kChunk, f);
    if (got == 0) break;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < got && prompts < maxPrompts; ++i, ++index) {
      const RawEvent& e = chunk[i];
      if (e.crystal1 >= s.crystalsPerRing || e.crystal2 >= s.crystalsPerRing ||
          e.ring1 >= s.rings || e.ring2 >= s.rings || (e.flags & ~kKnownFlags) != 0 ||
          std::abs(int(e.tofLsb)) > maxLsb)
        fail(
            format("%s: record %lld is out of range (crystals %u %u, rings %u %u, tofLsb %d, "
                   "flags %u)",
                   path.c_str(), (long long)index, e.crystal1, e.crystal2, e.ring1, e.ring2,
                   int(e.tofLsb), unsigned(e.flags)));
      if (e.flags & kFlagDelayed) {
        ++delayed;
        continue;
      }
      pinned[kept++] = e;
      ++prompts;
      while (nextCount < counts.size() && prompts == counts[nextCount])
        d.delayedBefore[nextCount++] = delayed;
    }
    if (kept > 0) {
      const auto c0 = std::chrono::steady_clock::now();
      ops::copyToDevice(raw.ptr, pinned, kept * sizeof(RawEvent));
      const std::size_t at = std::size_t(prompts) - kept;
      ops::convertEvents(tables, raw.ptr, kept, d.start.ptr + 3 * at, d.end.ptr + 3 * at,
                         d.bins.ptr + at, d.inverseAttenuation.ptr + at);
      ops::synchronize();
      convertSeconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    }
  }
  std::fclose(f);
  ops::releasePinned(pinned);
  d.count = prompts;
  d.recordsRead = index;
  d.readSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - convertSeconds;
  d.convertSeconds = convertSeconds;
  return d;
}

// ------------------------------------------------------------------------------------------------
// parallelproj calls: every small argument lives on the device too, so a call copies nothing.

struct PpArgs {
  Buffer<int> dim;
  Buffer<float> origin, voxel, sigma, offset;
  float binWidthMm = 0, sigmaMm = 0, numSigmas = 3;
  short numBins = 0;
  int tofHalfBins = 0;
  int device = 0, threads = 64;
  ImageBox box{};
};

PpArgs makePpArgs(const GridSpec& grid, const ScannerSpec& s, const Options& o) {
  PpArgs a;
  const PpImageArgs img(grid);
  a.dim = deviceCopy(std::vector<int>(img.dim, img.dim + 3));
  a.origin = deviceCopy(std::vector<float>(img.origin, img.origin + 3));
  a.voxel = deviceCopy(std::vector<float>(img.voxel, img.voxel + 3));
  a.binWidthMm = float(s.tofBinWidthMm());
  a.sigmaMm = float(s.tofSigmaMm());
  a.sigma = deviceCopy(std::vector<float>{a.sigmaMm});
  a.offset = deviceCopy(std::vector<float>{0.0f});
  a.numSigmas = o.numSigmas;
  a.tofHalfBins = s.tofHalfBins();
  a.numBins = short(2 * a.tofHalfBins + 1);
  a.device = o.device;
  a.threads = o.threadsPerBlock;
  for (int k = 0; k < 3; ++k) {
    a.box.originZyx[k] = img.origin[k];
    a.box.voxelZyx[k] = img.voxel[k];
    a.box.dimZyx[k] = img.dim[k];
  }
  return a;
}

void lmForward(const PpArgs& a, const DeviceEvents& ev, std::size_t begin, std::size_t count,
               const float* image, float* out) {
  joseph3d_tof_lm_fwd(ev.start.ptr + 3 * begin, ev.end.ptr + 3 * begin, image, a.origin.ptr,
                      a.voxel.ptr, out, count, a.dim.ptr, a.binWidthMm, a.sigma.ptr, a.offset.ptr,
                      a.numSigmas, ev.bins.ptr + begin, a.numBins, 0, 0, a.device, a.threads);
}

void lmBack(const PpArgs& a, const DeviceEvents& ev, std::size_t begin, std::size_t count,
            float* image, const float* values) {
  joseph3d_tof_lm_back(ev.start.ptr + 3 * begin, ev.end.ptr + 3 * begin, image, a.origin.ptr,
                       a.voxel.ptr, values, count, a.dim.ptr, a.binWidthMm, a.sigma.ptr,
                       a.offset.ptr, a.numSigmas, ev.bins.ptr + begin, a.numBins, 0, 0, a.device,
                       a.threads);
}

// ------------------------------------------------------------------------------------------------
// Sensitivity: non-TOF back-projection of the attenuation factors over every accepted LOR.

struct Sensitivity {
  Buffer<float> image;
  std::int64_t lors = 0;
  int calls = 0;
  double seconds = 0;
};

Sensitivity computeSensitivity(const ScannerSpec& s, const CrystalTables& tables,
                               const Buffer<float>& dx, const Buffer<float>& dy,
                               const Buffer<float>& dz, const GridSpec& grid, const PpArgs& a,
                               const Options& o) {
  Sensitivity sens;
  const SensitivityPlan plan = sensitivityPlan(s, tables);
  sens.lors = plan.totalLors;
  sens.image = Buffer<float>(grid.voxels());
  ops::zero(sens.image.ptr, sens.image.bytes());
  const Buffer<TransaxialPair> pairs = deviceCopy(plan.pairs);
  SensitivityTables st;
  st.crystalX = dx.ptr;
  st.crystalY = dy.ptr;
  st.ringZ = dz.ptr;
  st.pairs = pairs.ptr;
  st.water = o.water;
  const std::int64_t maxRun = std::int64_t(plan.pairs.size());
  const std::int64_t batch = std::max(o.sensitivityBatch, maxRun);
  Buffer<float> start(3 * std::size_t(batch));
  Buffer<float> end(3 * std::size_t(batch));
  Buffer<float> weight(static_cast<std::size_t>(batch));
  Buffer<RingPairRun> runs(plan.runs.size());
  ops::synchronize();
  const int m0 = ops::mark();
  std::size_t first = 0;
  while (first < plan.runs.size()) {
    std::vector<RingPairRun> group;
    std::int64_t total = 0, longest = 0;
    std::size_t k = first;
    for (; k < plan.runs.size() && group.size() < 65535; ++k) {
      if (total + plan.runs[k].count > batch) break;
      RingPairRun r = plan.runs[k];
      r.offset = total;
      total += r.count;
      longest = std::max(longest, r.count);
      group.push_back(r);
    }
    ops::copyToDevice(runs.ptr, group.data(), group.size() * sizeof(RingPairRun));
    ops::makeSensitivityLors(st, runs.ptr, int(group.size()), longest, total, start.ptr, end.ptr,
                             weight.ptr);
    joseph3d_back(start.ptr, end.ptr, sens.image.ptr, a.origin.ptr, a.voxel.ptr, weight.ptr,
                  std::size_t(total), a.dim.ptr, a.device, a.threads);
    ++sens.calls;
    first = k;
  }
  const int m1 = ops::mark();
  sens.seconds = ops::seconds(m0, m1);
  return sens;
}

// ------------------------------------------------------------------------------------------------
// ML-EM

struct PassTimes {
  double forward = 0, ratio = 0, back = 0, update = 0, total = 0;
};

struct EmState {
  Buffer<float> forward;   // per event: forward projection, then the ratio (in place)
  Buffer<float> backproj;  // image
};

// One ML-EM iteration over events [0, count) in `subsets` contiguous blocks; st.forward holds the
// events' ratios afterwards.
PassTimes emIteration(const PpArgs& a, const DeviceEvents& ev, std::size_t count, int subsets,
                      float randomsPerBin, const Sensitivity& sens, float* image, EmState& st) {
  PassTimes t;
  float* ratio = st.forward.ptr;
  const std::size_t voxels = sens.image.count;
  std::vector<int> marks;  // 5 per subset, read after the last so no wait falls inside the pass
  const int start = ops::mark();
  for (int s = 0; s < subsets; ++s) {
    const std::size_t b = count * std::size_t(s) / std::size_t(subsets);
    const std::size_t e = count * std::size_t(s + 1) / std::size_t(subsets);
    marks.push_back(ops::mark());
    lmForward(a, ev, b, e - b, image, st.forward.ptr + b);
    marks.push_back(ops::mark());
    ops::emRatios(st.forward.ptr + b, ev.inverseAttenuation.ptr + b, randomsPerBin, ratio + b,
                  e - b);
    marks.push_back(ops::mark());
    ops::zero(st.backproj.ptr, st.backproj.bytes());
    lmBack(a, ev, b, e - b, st.backproj.ptr, ratio + b);
    marks.push_back(ops::mark());
    ops::emUpdates(image, st.backproj.ptr, sens.image.ptr, float(subsets), voxels);
    marks.push_back(ops::mark());
  }
  const int stop = ops::mark();
  t.total = ops::seconds(start, stop);
  for (std::size_t k = 0; k + 4 < marks.size(); k += 5) {
    t.forward += ops::seconds(marks[k], marks[k + 1]);
    t.ratio += ops::seconds(marks[k + 1], marks[k + 2]);
    t.back += ops::seconds(marks[k + 2], marks[k + 3]);
    t.update += ops::seconds(marks[k + 3], marks[k + 4]);
  }
  ops::resetMarks();
  return t;
}

// ------------------------------------------------------------------------------------------------
// Indicative image quality (the definitions of recon/pet/PetImageQuality.cpp on the default
// PetPhantom: six 10 mm hot spheres at 75 mm, 4:1, in the slice nearest z = 0; annulus 5..15 mm
// outside the sphere's radius; noise = sd / mean in a 50 mm disc over slices within +-20 mm). Our
// bench computes the reported figures with PetImageQuality itself from the written images.

struct Quality {
  double meanHotCrc = 0, noise = 0;
};

Quality indicativeQuality(const std::vector<float>& img, const GridSpec& g) {
  constexpr double kPi = 3.14159265358979323846;
  Quality q;
  auto pos = [&](int axis, int i) { return g.originMm[axis] + i * g.voxelMm; };
  const long slice = std::lround((0.0 - g.originMm[2]) / g.voxelMm);
  if (slice < 0 || slice >= g.nz) return q;
  double crcSum = 0;
  for (int k = 0; k < 6; ++k) {
    const double cx = 75.0 * std::cos(2 * kPi * k / 6), cy = 75.0 * std::sin(2 * kPi * k / 6);
    double sIn = 0, sOut = 0;
    long nIn = 0, nOut = 0;
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        const double r = std::hypot(pos(0, x) - cx, pos(1, y) - cy);
        const double v = img[(std::size_t(slice) * g.ny + y) * g.nx + x];
        if (r <= 5.0) {
          sIn += v;
          ++nIn;
        }
        if (r >= 10.0 && r <= 20.0) {
          sOut += v;
          ++nOut;
        }
      }
    if (nIn == 0 || nOut == 0 || !(sOut > 0)) return q;
    const double pS = sIn / nIn, pB = sOut / nOut;
    crcSum += (pS - pB) / pB / 3.0;
  }
  q.meanHotCrc = crcSum / 6;
  double sum = 0, sum2 = 0;
  long n = 0;
  for (int z = 0; z < g.nz; ++z) {
    if (std::fabs(pos(2, z)) > 20.0) continue;
    for (int y = 0; y < g.ny; ++y)
      for (int x = 0; x < g.nx; ++x) {
        if (std::hypot(pos(0, x), pos(1, y)) > 25.0) continue;
        const double v = img[(std::size_t(z) * g.ny + y) * g.nx + x];
        sum += v;
        sum2 += v * v;
        ++n;
      }
  }
  if (n < 2) return q;
  const double mean = sum / n;
  const double var = std::max(0.0, (sum2 - n * mean * mean) / (n - 1));
  q.noise = mean > 0 ? std::sqrt(var) / mean : 0;
  return q;
}

void writeImage(const std::string& dir, const std::string& stem, const std::vector<float>& img,
                const GridSpec& g, json meta) {
  const std::string raw = dir + "/" + stem + ".raw";
  std::FILE* f = std::fopen(raw.c_str(), "wb");
  if (!f || std::fwrite(img.data(), sizeof(float), img.size(), f) != img.size())
    fail("cannot write " + raw);
  std::fclose(f);
  meta["format"] = "tomowb-bench-image";
  meta["version"] = 1;
  meta["raw"] = stem + ".raw";
  meta["dtype"] = "float32 little-endian";
  meta["layout"] = "x fastest: index = (z * ny + y) * nx + x";
  meta["grid"] = {{"nx", g.nx},
                  {"ny", g.ny},
                  {"nz", g.nz},
                  {"voxelMm", {g.voxelMm, g.voxelMm, g.voxelMm}},
                  {"originMm", {g.originMm[0], g.originMm[1], g.originMm[2]}},
                  {"origin", "centre of voxel (0, 0, 0)"}};
  std::ofstream(dir + "/" + stem + ".json") << meta.dump(2) << "\n";
}

std::string timeCell(const std::vector<double>& v, double scale = 1.0, const char* fmt = "%.3f") {
  return format(fmt, minOf(v) * scale) + " / " + format(fmt, median(v) * scale) + " / " +
         format(fmt, maxOf(v) * scale);
}

// ------------------------------------------------------------------------------------------------

int run(int argc, char** argv) {
  const Options o = parseOptions(argc, argv);
  makeDirs(o.outDir);
  if (const auto slash = o.out.find_last_of('/'); slash != std::string::npos)
    makeDirs(o.out.substr(0, slash));
  const std::string device = ops::initialise(o.device);
  std::printf("pp_lm_bench: backend %s, %s\n", ops::backendName(), device.c_str());
  std::printf("parallelproj %s (commit %s), CUDA enabled: %d\n", parallelproj_version(), PP_COMMIT,
              parallelproj_cuda_enabled());

  ListModeInfo info;
  if (!o.listmode.empty()) {
    info = openListMode(o.listmode);
  } else {
    info.scanner = scannerPreset(o.scannerPreset);
  }
  const ScannerSpec& scanner = info.scanner;
  const GridSpec grid = GridSpec::centred(o.nx, o.ny, o.nz, o.voxelMm);
  const CrystalTables tables = crystalTables(scanner);
  json summary;
  summary["date"] = isoNow();
  summary["device"] = device;
  summary["backend"] = ops::backendName();
  summary["parallelproj"] = {{"version", parallelproj_version()},
                             {"commit", PP_COMMIT},
                             {"cudaEnabled", parallelproj_cuda_enabled()}};
  summary["command"] = o.commandLine;
  summary["scanner"] = scanner.name;
  summary["grid"] = {{"nx", grid.nx},
                     {"ny", grid.ny},
                     {"nz", grid.nz},
                     {"voxelMm", grid.voxelMm},
                     {"originMm", {grid.originMm[0], grid.originMm[1], grid.originMm[2]}}};
  summary["tof"] = {{"sigmaMm", scanner.tofSigmaMm()},
                    {"binWidthMm", scanner.tofBinWidthMm()},
                    {"numBins", 2 * scanner.tofHalfBins() + 1},
                    {"numSigmas", o.numSigmas},
                    {"centerOffsetMm", 0.0},
                    {"threadsPerBlock", o.threadsPerBlock}};

  std::string md;     // title and setup bullets
  std::string check;  // the self-check section
  std::string tail;   // timing, image quality
  md += "# parallelproj TOF list-mode ML-EM, measured by bench/parallelproj/pp_lm_bench\n\n";
  md += "- date: " + summary["date"].get<std::string>() + "\n";
  md += "- device: " + device + " (backend " + ops::backendName() + ")\n";
  md += format(
      "- peer: parallelproj %s, github KUL-recon-lab/libparallelproj commit %s "
      "(Apache-2.0), built from its public source by bench/parallelproj/"
      "build-parallelproj.sh; called through its C API with device pointers only\n",
      parallelproj_version(), PP_COMMIT);
  md += "- command: `" + o.commandLine + "`\n";
  md += format(
      "- scanner: %s (%s, %d crystals x %d rings, crystal radius %.1f mm), TOF %.0f ps "
      "FWHM -> sigma %.2f mm, %d bins of %.0f ps = %.3f mm (event's tofLsb + %d), "
      "num_sigmas %.1f, tof_center_offset 0\n",
      scanner.name.c_str(), scanner.flatModules ? "flat modules" : "cylinder",
      scanner.crystalsPerRing, scanner.rings, scanner.crystalRadiusMm(), scanner.tofFwhmPs,
      scanner.tofSigmaMm(), 2 * scanner.tofHalfBins() + 1, scanner.tofLsbPs,
      scanner.tofBinWidthMm(), scanner.tofHalfBins(), double(o.numSigmas));
  md += format(
      "- image: %d x %d x %d at %.2f mm, centred (voxel 0 at %.1f, %.1f, %.1f mm); "
      "parallelproj gets the axes as (z, y, x) so its C-order image is our x-fastest "
      "layout\n",
      grid.nx, grid.ny, grid.nz, grid.voxelMm, grid.originMm[0], grid.originMm[1],
      grid.originMm[2]);

  // Self-check first: nothing is timed if the conventions are wrong.
  bool selfCheckPassed = true;
  if (o.selfCheck) {
    const SelfCheckResult sc = runSelfCheck(scanner, grid, o.numSigmas, o.threadsPerBlock, o.device,
                                            o.selfCheckEvents, 20260101);
    selfCheckPassed = sc.passed;
    std::printf("%s", sc.markdown.c_str());
    check += "\n## Self-check (sign convention, axis order, TOF normalisation, adjoint)\n\n";
    check += sc.markdown;
    summary["selfCheck"] = {{"passed", sc.passed}, {"text", sc.markdown}};
  }
  auto finish = [&](int status) {
    const auto slash = o.out.find_last_of('/');
    const std::string summaryPath =
        (slash == std::string::npos ? std::string(".") : o.out.substr(0, slash)) +
        "/pp_lm_summary.json";
    std::ofstream(o.out) << md << check << tail;
    std::ofstream(summaryPath) << summary.dump(2) << "\n";
    std::printf("pp_lm_bench: wrote %s and %s\n", o.out.c_str(), summaryPath.c_str());
    return status;
  };
  if (!selfCheckPassed) {
    tail += "\n**The self-check failed: nothing was timed.**\n";
    return finish(3);
  }
  if (o.listmode.empty()) {
    tail += "\n(no --listmode: self-check only)\n";
    return finish(0);
  }

  // Which counts: the first N prompts of the file.
  std::vector<std::int64_t> counts = o.counts;
  if (o.allEvents || counts.empty()) counts = {info.prompts};
  for (auto& n : counts)
    if (n > info.prompts) {
      std::printf("pp_lm_bench: the file has %lld prompts; %lld -> %lld\n", (long long)info.prompts,
                  (long long)n, (long long)info.prompts);
      n = info.prompts;
    }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  if (counts.empty() || counts.back() < 1) fail(o.listmode + " holds no prompts");

  const std::int64_t maxN = counts.back();
  const double needBytes = double(maxN) * (12 + 12 + 2 + 4 + 4 + (o.determinism ? 4 : 0)) +
                           double(o.sensitivityBatch) * 28 + 64e6;
  if (needBytes > double(ops::freeDeviceBytes()))
    fail(format("needs about %.1f GB of device memory, %.1f GB are free", needBytes / 1e9,
                double(ops::freeDeviceBytes()) / 1e9));

  const Buffer<float> dx = deviceCopy(tables.x), dy = deviceCopy(tables.y),
                      dz = deviceCopy(tables.z);
  EventTables et;
  et.crystalX = dx.ptr;
  et.crystalY = dy.ptr;
  et.ringZ = dz.ptr;
  et.tofHalfBins = scanner.tofHalfBins();
  et.water = o.water;
  std::printf("pp_lm_bench: reading the first %lld prompts of %s ...\n", (long long)maxN,
              o.listmode.c_str());
  const DeviceEvents ev = loadEvents(o.listmode, info, counts, et);
  if (ev.count < maxN) fail("the file ended before its header's prompt count");
  md += format(
      "- data: `%s`: %lld records (%lld prompts, %lld delayed); the first %lld prompts "
      "used (%lld records read, %.1f s reading, %.1f s upload + conversion on the "
      "device)\n",
      o.listmode.c_str(), (long long)info.events, (long long)info.prompts, (long long)info.delayed,
      (long long)maxN, (long long)ev.recordsRead, ev.readSeconds, ev.convertSeconds);
  summary["data"] = {{"file", o.listmode},
                     {"records", info.events},
                     {"prompts", info.prompts},
                     {"delayed", info.delayed},
                     {"header", info.header},
                     {"readSeconds", ev.readSeconds},
                     {"convertSeconds", ev.convertSeconds}};

  const PpArgs a = makePpArgs(grid, scanner, o);
  std::printf("pp_lm_bench: sensitivity ...\n");
  const Sensitivity sens = computeSensitivity(scanner, tables, dx, dy, dz, grid, a, o);
  md += format(
      "- sensitivity: parallelproj's non-TOF joseph3d_back of %s over all %lld LORs the "
      "scanner accepts (every crystal pair within +-%.0f deg and the %.0f mm field of "
      "view), %d call(s), %.2f s once (not in the pass)\n",
      o.attenuation ? format("exp(-mu chord) (water cylinder r %.0f mm, length %.0f mm, "
                             "mu %.4f/mm)",
                             o.water.radiusMm, 2 * o.water.halfLengthMm, o.water.muPerMm)
                          .c_str()
                    : "ones (no attenuation)",
      (long long)sens.lors, scanner.axialAcceptanceDeg, scanner.transaxialFovMm, sens.calls,
      sens.seconds);
  summary["sensitivity"] = {{"lors", sens.lors},
                            {"calls", sens.calls},
                            {"seconds", sens.seconds},
                            {"attenuation", o.attenuation},
                            {"waterRadiusMm", o.water.radiusMm},
                            {"waterLengthMm", 2 * o.water.halfLengthMm},
                            {"waterMuPerMm", o.water.muPerMm}};
  const std::vector<float> sensHost = sens.image.download();
  {
    json meta = {{"what", "parallelproj non-TOF sensitivity (A^T a over every accepted LOR)"},
                 {"lors", sens.lors}};
    writeImage(o.outDir, "pp_sensitivity", sensHost, grid, meta);
  }

  const double windowBins = scanner.coincidenceWindowPs / scanner.tofLsbPs;
  md += format("- randoms: %s\n",
               o.randoms ? format("uniform estimate from the delayed events read with the prompts:"
                                  " delayed / (%lld LORs x %.0f bins of the %.0f ps window) per "
                                  "LOR and TOF bin, over the LOR's attenuation factor",
                                  (long long)sens.lors, windowBins, scanner.coincidenceWindowPs)
                               .c_str()
                         : "none");
  md += format("- subsets: %d (%s)\n", o.subsets,
               o.subsets == 1 ? "plain ML-EM" : "list-mode OSEM over contiguous blocks");
  md +=
      "- cited for comparison (issue #20's text, one H100, not measured here): 1.03 s per "
      "pass at 4.3e8 events, 0.24 s at 1e8; TOF sinogram (33 bins, 302.6 M LORs) 6.08 s\n";

  EmState st;
  st.forward = Buffer<float>(std::size_t(maxN));
  st.backproj = Buffer<float>(grid.voxels());
  Buffer<float> image(grid.voxels()), start(grid.voxels());
  ops::fillInsideSensitivity(start.ptr, sens.image.ptr, 1.0f, grid.voxels());

  std::string timing =
      "\n## Timing: one ML-EM pass (TOF list-mode forward of every event, ratio, back-projection, "
      "update)\n\n" +
      std::string(std::strcmp(ops::backendName(), "cuda") == 0
                      ? "CUDA events on the default stream"
                      : "Wall clocks (host build: a check of the driver, not a benchmark)") +
      " around each parallelproj call and each of our kernels; everything device-resident float32 "
      "(events' LOR endpoints, TOF bins, image, "
      "sensitivity). Min / median / max over the timed passes after one warm-up pass. Samples: "
      "our estimate of parallelproj's bilinear samples (planes within +-num_sigmas sigma inside "
      "the image), forward + back; the ceiling is the H100's software bilinear rate, 851 G "
      "samples/s (reference/gpu-limits-h100.md, Table 1, 4 x __ldg + FMA); the back-projection's "
      "float atomics are not in that ceiling.\n\n"
      "| events | forward s | back-projection s | ratio + update ms (median) | pass s | M events/s "
      "(median) | samples / event | G samples/s | of 851 G/s | bit-identical twice |\n"
      "|---:|---|---|---:|---|---:|---:|---:|---:|---|\n";
  std::string quality =
      "\n## Image quality (indicative: this driver's copy of the PetImageQuality ROIs; our bench "
      "measures the written images with PetImageQuality itself)\n\n"
      "| events | iteration | mean hot CRC | noise (%) | image |\n|---:|---:|---:|---:|---|\n";
  json rows = json::array();
  std::vector<std::int64_t> qualityCounts = o.qualityCounts.empty() ? counts : o.qualityCounts;

  for (std::size_t ci = 0; ci < counts.size(); ++ci) {
    const std::int64_t n = counts[ci];
    const std::size_t N = std::size_t(n);
    const double delayed = o.randoms ? double(ev.delayedBefore[ci]) : 0.0;
    const float randomsPerBin = float(delayed / (double(sens.lors) * windowBins));
    std::printf("pp_lm_bench: %s events (%lld delayed before them, randoms %.3g per LOR and bin)\n",
                countLabel(n).c_str(), (long long)ev.delayedBefore[ci], double(randomsPerBin));
    const std::uint64_t samples =
        ops::countSamples(a.box, ev.start.ptr, ev.end.ptr, ev.bins.ptr, N, a.tofHalfBins,
                          a.binWidthMm, a.sigmaMm, a.numSigmas);

    // Timing: a warm-up pass, then `reps` passes continuing the iteration from the start image.
    ops::copyDeviceToDevice(image.ptr, start.ptr, image.bytes());
    emIteration(a, ev, N, o.subsets, randomsPerBin, sens, image.ptr, st);
    std::vector<double> fwd, ratioUpdate, back, total;
    for (int r = 0; r < o.reps; ++r) {
      const PassTimes t = emIteration(a, ev, N, o.subsets, randomsPerBin, sens, image.ptr, st);
      fwd.push_back(t.forward);
      back.push_back(t.back);
      ratioUpdate.push_back(t.ratio + t.update);
      total.push_back(t.total);
      std::printf(
          "  pass %d: forward %.4f s, ratio %.2f ms, back %.4f s, update %.2f ms, total "
          "%.4f s\n",
          r + 1, t.forward, t.ratio * 1e3, t.back, t.update * 1e3, t.total);
    }

    // Determinism: two passes from the same image; ratios (forward) and images compared bit for
    // bit.
    std::string identical = "not run";
    json det;
    if (o.determinism) {
      Buffer<float> ratio1(N);
      ops::copyDeviceToDevice(image.ptr, start.ptr, image.bytes());
      emIteration(a, ev, N, o.subsets, randomsPerBin, sens, image.ptr, st);
      ops::copyDeviceToDevice(ratio1.ptr, st.forward.ptr, ratio1.bytes());
      const std::vector<float> img1 = image.download();
      ops::copyDeviceToDevice(image.ptr, start.ptr, image.bytes());
      emIteration(a, ev, N, o.subsets, randomsPerBin, sens, image.ptr, st);
      const std::vector<float> img2 = image.download();
      const std::uint64_t ratioDiff =
          ops::countMismatches(reinterpret_cast<const std::uint32_t*>(ratio1.ptr),
                               reinterpret_cast<const std::uint32_t*>(st.forward.ptr), N);
      std::size_t imageDiff = 0;
      double maxRel = 0;
      for (std::size_t i = 0; i < img1.size(); ++i)
        if (std::memcmp(&img1[i], &img2[i], sizeof(float)) != 0) {
          ++imageDiff;
          const double m = std::max(std::fabs(double(img1[i])), std::fabs(double(img2[i])));
          if (m > 0) maxRel = std::max(maxRel, std::fabs(double(img1[i]) - img2[i]) / m);
        }
      identical = format(
          "ratios %s; image %s", ratioDiff ? "no" : "yes",
          imageDiff ? format("no (%zu voxels differ, max rel %.1e)", imageDiff, maxRel).c_str()
                    : "yes");
      det = {{"forwardDifferingEvents", ratioDiff},
             {"imageDifferingVoxels", imageDiff},
             {"imageMaxRelativeDifference", maxRel}};
    }

    const double medTotal = median(total);
    const double gsps = medTotal > 0 ? 2.0 * double(samples) / medTotal / 1e9 : 0;
    timing += "| " + countLabel(n) + format(" (%lld)", (long long)n) + " | " + timeCell(fwd) +
              " | " + timeCell(back) + " | " + format("%.2f", median(ratioUpdate) * 1e3) + " | " +
              timeCell(total) + " | " +
              format("%.1f", medTotal > 0 ? double(n) / medTotal / 1e6 : 0) + " | " +
              format("%.1f", double(samples) / double(n)) + " | " + format("%.1f", gsps) + " | " +
              format("%.1f%%", 100.0 * gsps / 851.0) + " | " + identical + " |\n";
    json row = {{"events", n},
                {"delayedBefore", ev.delayedBefore[ci]},
                {"randomsPerBin", randomsPerBin},
                {"forwardSeconds", fwd},
                {"backSeconds", back},
                {"ratioUpdateSeconds", ratioUpdate},
                {"passSeconds", total},
                {"samples", samples},
                {"determinism", det}};

    // Image quality: `iterations` ML-EM iterations from the start image, saving some.
    if (o.iterations > 0 &&
        std::find(qualityCounts.begin(), qualityCounts.end(), n) != qualityCounts.end()) {
      std::set<int> save = o.save;
      if (save.empty()) {
        for (int k : {1, 2, 5}) save.insert(k);
        for (int k = 10; k <= o.iterations; k += 10) save.insert(k);
      }
      save.insert(o.iterations);
      ops::copyDeviceToDevice(image.ptr, start.ptr, image.bytes());
      json iters = json::array();
      std::vector<double> iterTimes;
      for (int it = 1; it <= o.iterations; ++it) {
        const PassTimes t = emIteration(a, ev, N, o.subsets, randomsPerBin, sens, image.ptr, st);
        iterTimes.push_back(t.total);
        if (!save.count(it)) continue;
        const std::vector<float> host = image.download();
        const Quality q = indicativeQuality(host, grid);
        const std::string stem = format("pp_lm_%s_it%03d", countLabel(n).c_str(), it);
        json meta = {{"what", "parallelproj TOF list-mode ML-EM image"},
                     {"peer", "parallelproj"},
                     {"parallelprojVersion", parallelproj_version()},
                     {"parallelprojCommit", PP_COMMIT},
                     {"listmode", o.listmode},
                     {"events", n},
                     {"eventsRule", "the first N prompts (delayed records skipped) of the file"},
                     {"iteration", it},
                     {"subsets", o.subsets},
                     {"randomsPerBin", randomsPerBin},
                     {"attenuation", o.attenuation},
                     {"numSigmas", o.numSigmas},
                     {"startImage", "1 where the sensitivity > 0"},
                     {"indicativeMeanHotCrc", q.meanHotCrc},
                     {"indicativeNoise", q.noise}};
        writeImage(o.outDir, stem, host, grid, meta);
        quality += "| " + countLabel(n) + " | " + std::to_string(it) + " | " +
                   format("%.3f", q.meanHotCrc) + " | " + format("%.1f", 100 * q.noise) + " | " +
                   stem + ".raw |\n";
        iters.push_back({{"iteration", it},
                         {"image", stem + ".raw"},
                         {"indicativeMeanHotCrc", q.meanHotCrc},
                         {"indicativeNoise", q.noise}});
        std::printf("  iteration %d: CRC %.3f, noise %.1f%% -> %s.raw\n", it, q.meanHotCrc,
                    100 * q.noise, stem.c_str());
      }
      row["qualityIterations"] = iters;
      row["iterationSeconds"] = iterTimes;
    }
    rows.push_back(row);
  }
  summary["rows"] = rows;
  tail += timing + quality;
  tail +=
      "\nImages: float32, x fastest, one `.json` beside each `.raw` with the grid and the run "
      "(written to `" +
      o.outDir + "`).\n";
  return finish(0);
}

}  // namespace
}  // namespace ppbench

int main(int argc, char** argv) {
  try {
    return ppbench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pp_lm_bench: %s\n", e.what());
    return 2;
  }
}
