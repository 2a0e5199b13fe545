#include "recon/io/SampleType.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "recon/core/ParallelFor.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"

namespace tomowb::io {

namespace {

// 4 Mi samples per chunk: large enough that the per-call overhead vanishes, small enough that
// the staging buffer stays in the tens of MiB even for float64.
constexpr std::size_t kChunkSamples = std::size_t{1} << 22;
// Reads of this many pieces (64 MiB of float32) and more go to several threads.
constexpr std::size_t kParallelMinPieces = 4;

template <typename T>
T loadSample(const std::byte* p, bool swap) noexcept {
  std::array<std::byte, sizeof(T)> bytes;
  std::memcpy(bytes.data(), p, sizeof(T));
  if (swap) std::reverse(bytes.begin(), bytes.end());
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

template <typename T>
void convertTyped(std::span<const std::byte> src, bool swap, std::span<float> dst) noexcept {
  const std::byte* p = src.data();
  for (std::size_t i = 0; i < dst.size(); ++i, p += sizeof(T))
    dst[i] = static_cast<float>(loadSample<T>(p, swap));
}

}  // namespace

std::size_t sampleBytes(SampleType type) noexcept {
  switch (type) {
    case SampleType::UInt8:
    case SampleType::Int8:
      return 1;
    case SampleType::UInt16:
    case SampleType::Int16:
    case SampleType::Float16:
      return 2;
    case SampleType::UInt32:
    case SampleType::Int32:
    case SampleType::Float32:
      return 4;
    case SampleType::Float64:
      return 8;
  }
  return 0;
}

std::string_view toString(SampleType type) noexcept {
  switch (type) {
    case SampleType::UInt8:
      return "uint8";
    case SampleType::Int8:
      return "int8";
    case SampleType::UInt16:
      return "uint16";
    case SampleType::Int16:
      return "int16";
    case SampleType::UInt32:
      return "uint32";
    case SampleType::Int32:
      return "int32";
    case SampleType::Float32:
      return "float32";
    case SampleType::Float64:
      return "float64";
    case SampleType::Float16:
      return "float16";
  }
  return "unknown";
}

std::optional<SampleType> sampleTypeFromString(std::string_view name) noexcept {
  for (SampleType t : {SampleType::UInt8, SampleType::Int8, SampleType::UInt16, SampleType::Int16,
                       SampleType::UInt32, SampleType::Int32, SampleType::Float32,
                       SampleType::Float64, SampleType::Float16}) {
    if (toString(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view toString(ByteOrder order) noexcept {
  return order == ByteOrder::Little ? "little" : "big";
}

void convertToFloat(std::span<const std::byte> src, SampleType type, ByteOrder order,
                    std::span<float> dst) {
  const bool swap = order != kHostByteOrder;
  switch (type) {
    case SampleType::UInt8:
      return convertTyped<std::uint8_t>(src, false, dst);
    case SampleType::Int8:
      return convertTyped<std::int8_t>(src, false, dst);
    case SampleType::UInt16:
      return convertTyped<std::uint16_t>(src, swap, dst);
    case SampleType::Int16:
      return convertTyped<std::int16_t>(src, swap, dst);
    case SampleType::UInt32:
      return convertTyped<std::uint32_t>(src, swap, dst);
    case SampleType::Int32:
      return convertTyped<std::int32_t>(src, swap, dst);
    case SampleType::Float32:
      return convertTyped<float>(src, swap, dst);
    case SampleType::Float64:
      return convertTyped<double>(src, swap, dst);
    case SampleType::Float16: {
      const std::byte* p = src.data();
      for (std::size_t i = 0; i < dst.size(); ++i, p += 2)
        dst[i] = halfToFloat(loadSample<std::uint16_t>(p, swap));
      return;
    }
  }
}

float halfToFloat(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa x 2^-24.
    const float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -value : value;
  }
  const std::uint32_t bits = exponent == 0x1f ? sign | 0x7f800000u | mantissa << 13
                                              : sign | (exponent + 112) << 23 | mantissa << 13;
  return std::bit_cast<float>(bits);
}

void readSamplesAsFloat(const InputFile& file, std::uint64_t offset, SampleType type,
                        ByteOrder order, std::span<float> dst, std::string_view field) {
  const std::size_t bytesPerSample = sampleBytes(type);
  // dst exists, so dst.size() * bytesPerSample cannot overflow (<= 8 x a live allocation / 4).
  file.requireRange(offset, std::uint64_t{dst.size()} * bytesPerSample, field);
  // Pieces of 4 Mi samples, several threads at a time where there are many: one thread copies
  // about 2 GB/s out of the page cache, so a 3 GB stack took 1.5 s to load.
  const std::size_t pieces = (dst.size() + kChunkSamples - 1) / kChunkSamples;
  const auto readPiece = [&](std::size_t k, std::vector<std::byte>& staging) {
    const std::size_t first = k * kChunkSamples,
                      count = std::min(kChunkSamples, dst.size() - first);
    const std::uint64_t at = offset + std::uint64_t{first} * bytesPerSample;
    if (type == SampleType::Float32 && order == kHostByteOrder) {
      file.readAt(at, std::as_writable_bytes(dst.subspan(first, count)), field);
      return;
    }
    staging.resize(count * bytesPerSample);
    file.readAt(at, staging, field);
    convertToFloat(staging, type, order, dst.subspan(first, count));
  };
  if (pieces < kParallelMinPieces) {
    std::vector<std::byte> staging;
    for (std::size_t k = 0; k < pieces; ++k) readPiece(k, staging);
    return;
  }
  parallelFor(static_cast<std::int64_t>(pieces), [&](std::int64_t k) {
    std::vector<std::byte> staging;
    readPiece(static_cast<std::size_t>(k), staging);
  });
}

void writeFloat32(AtomicFileWriter& out, std::span<const float> samples, ByteOrder order) {
  if (order == kHostByteOrder) {
    out.write(samples.data(), samples.size_bytes());
    return;
  }
  std::vector<std::uint32_t> staging(std::min(samples.size(), kChunkSamples));
  for (std::size_t first = 0; first < samples.size(); first += kChunkSamples) {
    const std::size_t count = std::min(kChunkSamples, samples.size() - first);
    for (std::size_t i = 0; i < count; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, &samples[first + i], 4);
      staging[i] = __builtin_bswap32(bits);
    }
    out.write(staging.data(), count * 4);
  }
}

}  // namespace tomowb::io
