// Stored sample types and byte orders of the files we read, and their conversion to the float32
// the core works in. Readers convert in bounded chunks straight into the destination, so a file
// is never held twice in memory; float32 in host order is read without any copy.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tomowb::io {

class InputFile;
class AtomicFileWriter;

enum class SampleType { UInt8, Int8, UInt16, Int16, UInt32, Int32, Float32, Float64, Float16 };
enum class ByteOrder { Little, Big };

inline constexpr ByteOrder kHostByteOrder =
    std::endian::native == std::endian::little ? ByteOrder::Little : ByteOrder::Big;

std::size_t sampleBytes(SampleType type) noexcept;
// "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "float64", "float16".
std::string_view toString(SampleType type) noexcept;
std::optional<SampleType> sampleTypeFromString(std::string_view name) noexcept;
std::string_view toString(ByteOrder order) noexcept;  // "little", "big"

// An IEEE 754 half-precision value (float16: MRC mode 12, numpy's float16) as float: exact,
// subnormals, infinities and NaN included.
float halfToFloat(std::uint16_t bits) noexcept;

// Converts dst.size() samples stored in `src` (src.size() == dst.size() * sampleBytes(type)).
// float64 values beyond the float range become +-inf, as a cast does.
void convertToFloat(std::span<const std::byte> src, SampleType type, ByteOrder order,
                    std::span<float> dst);

// Reads dst.size() samples at `offset` of `file` and converts them; FormatError naming `field`
// if the file is too short (checked before anything is read).
void readSamplesAsFloat(const InputFile& file, std::uint64_t offset, SampleType type,
                        ByteOrder order, std::span<float> dst, std::string_view field);

// Writes the samples as float32 in `order`.
void writeFloat32(AtomicFileWriter& out, std::span<const float> samples, ByteOrder order);

}  // namespace tomowb::io
