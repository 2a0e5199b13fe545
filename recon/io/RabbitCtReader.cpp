#include "recon/io/RabbitCtReader.h"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/geometry/MatrixGeometry.h"
#include "recon/io/InputFile.h"
#include "recon/io/ReaderLimits.h"
#include "recon/io/SampleType.h"

namespace tomowb::io {

namespace {

std::uint32_t littleUint32(const std::byte* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<std::uint32_t>(p[i]);
  return v;
}

float littleFloat(const std::byte* p) {
  const std::uint32_t bits = littleUint32(p);
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

double littleDouble(const std::byte* p) {
  std::uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = bits << 8 | static_cast<std::uint64_t>(p[i]);
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

std::uint64_t bytesPerView(const RabbitCtHeader& h) {
  // width, height <= 2^20, so this cannot overflow.
  return kRabbitCtMatrixBytes +
         4 * static_cast<std::uint64_t>(h.width) * static_cast<std::uint64_t>(h.height);
}

RabbitCtHeader parseHeader(const InputFile& file) {
  std::array<std::byte, kRabbitCtHeaderBytes> bytes{};
  file.readAt(0, bytes, "header");
  RabbitCtHeader h;
  h.width = checkedAxisLength(file.path(), "width", littleUint32(bytes.data()));
  h.height = checkedAxisLength(file.path(), "height", littleUint32(bytes.data() + 4));
  h.viewCount = checkedAxisLength(file.path(), "numImages", littleUint32(bytes.data() + 8));
  h.huScale = {littleFloat(bytes.data() + 12), littleFloat(bytes.data() + 16)};
  if (!std::isfinite(h.huScale[0]) || !std::isfinite(h.huScale[1]))
    throw FormatError(file.path(), "HUScale", "must be finite");
  const auto views = mulChecked(bytesPerView(h), static_cast<std::uint64_t>(h.viewCount));
  if (!views) throw FormatError(file.path(), "numImages", "data size overflows 64 bits");
  file.requireRange(kRabbitCtHeaderBytes, *views, "numImages");
  h.trailingBytes = file.size() - kRabbitCtHeaderBytes - *views;
  return h;
}

}  // namespace

float rabbitCtHounsfield(float mu, const std::array<float, 2>& huScale) noexcept {
  if (!(mu > 0.0f)) return 0.0f;
  const float hu = std::round(huScale[0] * mu + huScale[1]);
  return hu > 4095.0f ? 4095.0f : hu;
}

float RabbitCtProjections::toHounsfield(float mu) const noexcept {
  return rabbitCtHounsfield(mu, huScale);
}

RabbitCtHeader readRabbitCtHeader(const std::filesystem::path& path) {
  const InputFile file(path);
  return parseHeader(file);
}

namespace {

RabbitCtLayout describe(const InputFile& file, const RabbitCtOptions& options) {
  const std::filesystem::path& path = file.path();
  RabbitCtLayout out;
  out.header = parseHeader(file);
  const RabbitCtHeader& h = out.header;
  if (options.maxViews < 0)
    throw ParameterError("maxViews", "must be >= 0, got " + std::to_string(options.maxViews));
  if (!(options.pixelPitchMm > 0.0) || !std::isfinite(options.pixelPitchMm))
    throw ParameterError("pixelPitchMm", "must be finite and > 0");
  const std::int64_t views =
      options.maxViews > 0 ? std::min(options.maxViews, h.viewCount) : h.viewCount;
  out.viewStrideBytes = bytesPerView(h);
  out.pixelsOffset = kRabbitCtHeaderBytes + kRabbitCtMatrixBytes;
  out.matrices.reserve(static_cast<std::size_t>(views));
  std::array<std::byte, kRabbitCtMatrixBytes> matrixBytes{};
  for (std::int64_t i = 0; i < views; ++i) {
    file.readAt(kRabbitCtHeaderBytes + static_cast<std::uint64_t>(i) * out.viewStrideBytes,
                matrixBytes, "matrix");
    ProjectionMatrix m;
    // Column-major, as Eigen stores a 3x4 matrix by default.
    for (int k = 0; k < 12; ++k)
      m.data()[k] = littleDouble(matrixBytes.data() + 8 * static_cast<std::size_t>(k));
    out.matrices.push_back(m);
  }
  const DetectorShape detector{h.width, h.height};
  std::vector<View> viewList;
  viewList.reserve(out.matrices.size());
  for (std::size_t i = 0; i < out.matrices.size(); ++i) {
    const std::string field = "matrix of view " + std::to_string(i);
    try {
      viewList.push_back(
          viewFromMatrix(BeamKind::Cone, detector, out.matrices[i], options.pixelPitchMm, field));
    } catch (const ParameterError& e) {
      throw FormatError(path, field, e.what());
    }
  }
  out.geometry = Geometry(BeamKind::Cone, detector, std::move(viewList));
  try {
    out.geometry.validate();
  } catch (const ParameterError& e) {
    throw FormatError(path, "matrices", e.what());
  }
  return out;
}

}  // namespace

RabbitCtLayout readRabbitCtLayout(const std::filesystem::path& path,
                                  const RabbitCtOptions& options) {
  const InputFile file(path);
  return describe(file, options);
}

RabbitCtProjections readRabbitCt(const std::filesystem::path& path,
                                 const RabbitCtOptions& options) {
  const InputFile file(path);
  RabbitCtLayout layout = describe(file, options);
  RabbitCtProjections out;
  out.huScale = layout.header.huScale;
  out.viewsInFile = layout.header.viewCount;
  out.matrices = std::move(layout.matrices);
  out.projections = ProjectionStack(std::move(layout.geometry));
  for (std::int64_t i = 0; i < out.projections.viewCount(); ++i)
    readSamplesAsFloat(
        file, layout.pixelsOffset + static_cast<std::uint64_t>(i) * layout.viewStrideBytes,
        SampleType::Float32, ByteOrder::Little, out.projections.viewPixels(i), "image");
  return out;
}

}  // namespace tomowb::io
