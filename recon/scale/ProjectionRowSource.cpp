// ProjectionRowSource: see the header.
#include "recon/scale/ProjectionRowSource.h"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/ParallelFor.h"
#include "recon/io/Hdf5Volume.h"
#include "recon/io/InputFile.h"
#include "recon/io/SampleType.h"
#include "recon/io/TiffIo.h"

namespace tomowb::scale {

namespace {

void checkBand(const Geometry& geometry, std::int64_t rowFirst, std::int64_t rowLast) {
  const std::int64_t rows = geometry.detector().rows;
  if (rowFirst < 0 || rowLast < rowFirst || rowLast >= rows)
    throw ParameterError("detector rows",
                         "band " + std::to_string(rowFirst) + ".." + std::to_string(rowLast) +
                             " is not inside the detector's 0.." + std::to_string(rows - 1));
}

// The stack readRowBands returns: rows as many as the bands hold, cropRows' geometry from the
// first band's first row. Throws ParameterError for no band, a band off the detector, or bands
// holding more rows than the detector.
ProjectionStack bandStack(const Geometry& geometry,
                          const std::vector<std::pair<std::int64_t, std::int64_t>>& bands,
                          std::int64_t& held) {
  if (bands.empty()) throw ParameterError("detector rows", "no band of rows to read");
  held = 0;
  for (const auto& [first, last] : bands) {
    checkBand(geometry, first, last);
    held += last - first + 1;
  }
  if (bands.front().first + held > geometry.detector().rows)
    throw ParameterError("detector rows", "the bands hold more rows than the detector");
  return ProjectionStack(cropRows(geometry, bands.front().first, bands.front().first + held - 1));
}

}  // namespace

Geometry cropRows(const Geometry& geometry, std::int64_t rowFirst, std::int64_t rowLast) {
  checkBand(geometry, rowFirst, rowLast);
  const std::int64_t rows = geometry.detector().rows, band = rowLast - rowFirst + 1;
  // Pixel (c, r) of the band is pixel (c, rowFirst + r) of the detector.
  const double shift = double(rowFirst) + 0.5 * double(band - 1) - 0.5 * double(rows - 1);
  std::vector<View> views = geometry.views();
  for (View& v : views) v.detectorCentre += shift * v.v;
  return Geometry(geometry.beam(), DetectorShape{geometry.detector().cols, band}, std::move(views));
}

ProjectionStack ProjectionRowSource::readRowBands(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& bands) {
  std::int64_t held = 0;
  ProjectionStack out = bandStack(geometry(), bands, held);
  const std::int64_t cols = out.cols();
  std::int64_t at = 0;
  for (const auto& [first, last] : bands) {
    const ProjectionStack band = readRows(first, last);
    const std::int64_t n = last - first + 1;
    parallelFor(out.viewCount(), [&](std::int64_t view) {
      std::copy_n(band.data() + view * n * cols, n * cols, out.data() + (view * held + at) * cols);
    });
    at += n;
  }
  return out;
}

ProjectionStack InMemoryRowSource::readRows(std::int64_t rowFirst, std::int64_t rowLast) {
  ProjectionStack out(cropRows(stack_.geometry(), rowFirst, rowLast));
  const std::int64_t cols = stack_.cols(), band = rowLast - rowFirst + 1;
  for (std::int64_t view = 0; view < stack_.viewCount(); ++view)
    std::copy_n(stack_.data() + (view * stack_.rows() + rowFirst) * cols, band * cols,
                out.data() + view * band * cols);
  return out;
}

RawFileRowSource::RawFileRowSource(const std::filesystem::path& rawOrJsonPath)
    : sidecar_(io::readRawSidecar(rawOrJsonPath)) {
  if (sidecar_.content != io::RawContent::Projections)
    throw FormatError(sidecar_.sidecarPath,
                      "holds a volume, not projections: out-of-core FDK reads projections");
  file_ = std::make_unique<io::InputFile>(sidecar_.dataPath);
}

RawFileRowSource::~RawFileRowSource() = default;

ProjectionStack RawFileRowSource::readRows(std::int64_t rowFirst, std::int64_t rowLast) {
  ProjectionStack out(cropRows(sidecar_.geometry, rowFirst, rowLast));
  const std::int64_t cols = sidecar_.cols, rows = sidecar_.rows, band = rowLast - rowFirst + 1;
  const auto sample = static_cast<std::int64_t>(io::sampleBytes(sidecar_.sampleType));
  // One pread per view: the band's rows of a view are contiguous in [view][row][col]. The views
  // are read by several threads: one thread copies about 2 GB/s out of the page cache.
  parallelFor(sidecar_.views, [&](std::int64_t view) {
    const std::uint64_t offset = productOrThrow("offset", {view * rows + rowFirst, cols, sample});
    io::readSamplesAsFloat(
        *file_, offset, sidecar_.sampleType, sidecar_.byteOrder,
        std::span<float>(out.data() + view * band * cols, static_cast<std::size_t>(band * cols)),
        "view " + std::to_string(view));
  });
  return out;
}

ProjectionStack RawFileRowSource::readRowBands(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& bands) {
  std::int64_t held = 0;
  ProjectionStack out = bandStack(sidecar_.geometry, bands, held);
  const std::int64_t cols = sidecar_.cols, rows = sidecar_.rows;
  const auto sample = static_cast<std::int64_t>(io::sampleBytes(sidecar_.sampleType));
  parallelFor(sidecar_.views, [&](std::int64_t view) {  // as readRows: a pread per view and band
    std::int64_t at = 0;
    for (const auto& [first, last] : bands) {
      const std::int64_t n = last - first + 1;
      io::readSamplesAsFloat(*file_, productOrThrow("offset", {view * rows + first, cols, sample}),
                             sidecar_.sampleType, sidecar_.byteOrder,
                             std::span<float>(out.data() + (view * held + at) * cols,
                                              static_cast<std::size_t>(n * cols)),
                             "view " + std::to_string(view));
      at += n;
    }
  });
  return out;
}

StackFileRowSource::StackFileRowSource(io::ProjectionStackOnDisk stack)
    : stack_(std::move(stack)), file_(std::make_unique<io::InputFile>(stack_.path)) {
  const std::int64_t views = stack_.geometry.viewCount();
  const std::uint64_t viewBytes =
      productOrThrow("samples", {stack_.geometry.detector().rows, stack_.geometry.detector().cols,
                                 static_cast<std::int64_t>(io::sampleBytes(stack_.sampleType))});
  if (stack_.viewStrideBytes == 0) stack_.viewStrideBytes = viewBytes;
  if (stack_.layout == io::ProjectionLayout::Astra && stack_.viewStrideBytes != viewBytes)
    throw ParameterError("viewStrideBytes", "applies to [views][rows][cols] stacks only");
  if (stack_.viewStrideBytes < viewBytes)
    throw ParameterError("viewStrideBytes", "is less than a view's samples");
  // The last view ends viewBytes after its start.
  const std::uint64_t bytes =
      views == 0 ? 0
                 : productOrThrow("samples",
                                  {views - 1, static_cast<std::int64_t>(stack_.viewStrideBytes)}) +
                       viewBytes;
  file_->requireRange(stack_.dataOffset, bytes, "samples");
}

StackFileRowSource::~StackFileRowSource() = default;

ProjectionStack StackFileRowSource::readRows(std::int64_t rowFirst, std::int64_t rowLast) {
  ProjectionStack out(cropRows(stack_.geometry, rowFirst, rowLast));
  const std::int64_t views = stack_.geometry.viewCount(), cols = stack_.geometry.detector().cols,
                     band = rowLast - rowFirst + 1;
  const auto sample = static_cast<std::int64_t>(io::sampleBytes(stack_.sampleType));
  if (stack_.layout == io::ProjectionLayout::Astra && stack_.fortranOrder)
    return readAstraFortranRows(rowFirst, rowLast);
  if (stack_.layout == io::ProjectionLayout::Astra) {
    // [row][view][col]: the band is one block; each of its lines goes to its view.
    std::vector<float> block(static_cast<std::size_t>(band * views * cols));
    io::readSamplesAsFloat(
        *file_, stack_.dataOffset + productOrThrow("offset", {rowFirst, views, cols, sample}),
        stack_.sampleType, stack_.byteOrder, block, "rows");
    for (std::int64_t r = 0; r < band; ++r)
      for (std::int64_t v = 0; v < views; ++v)
        std::copy_n(block.data() + (r * views + v) * cols, cols, &out.at(v, r, 0));
    return out;
  }
  if (stack_.fortranOrder) {
    // Views fastest, then rows, then columns: the band of column c is one run of band x views
    // samples, row by row.
    const std::int64_t rows = stack_.geometry.detector().rows;
    std::vector<float> run(static_cast<std::size_t>(band * views));
    for (std::int64_t c = 0; c < cols; ++c) {
      io::readSamplesAsFloat(
          *file_,
          stack_.dataOffset + productOrThrow("offset", {c * rows + rowFirst, views, sample}),
          stack_.sampleType, stack_.byteOrder, run, "column " + std::to_string(c));
      for (std::int64_t r = 0; r < band; ++r)
        for (std::int64_t v = 0; v < views; ++v) out.at(v, r, c) = run[std::size_t(r * views + v)];
    }
    return out;
  }
  parallelFor(views, [&](std::int64_t view) {  // as RawFileRowSource: a view per thread
    io::readSamplesAsFloat(
        *file_,
        stack_.dataOffset +
            productOrThrow("offset", {view, static_cast<std::int64_t>(stack_.viewStrideBytes)}) +
            productOrThrow("offset", {rowFirst, cols, sample}),
        stack_.sampleType, stack_.byteOrder,
        std::span<float>(out.data() + view * band * cols, static_cast<std::size_t>(band * cols)),
        "view " + std::to_string(view));
  });
  return out;
}

ProjectionStack StackFileRowSource::readAstraFortranRows(std::int64_t rowFirst,
                                                         std::int64_t rowLast) {
  // Rows fastest, then views, then columns: sample (row r, view v, column c) at
  // (c * views + v) * rows + r. A view's band in column c is one run of `band` samples; a run
  // shorter than a page shares its pages with the other rows, so then the column's whole span of
  // views is read at once (every page is read anyway) and the band picked out of it.
  ProjectionStack out(cropRows(stack_.geometry, rowFirst, rowLast));
  const std::int64_t views = stack_.geometry.viewCount(), cols = stack_.geometry.detector().cols,
                     rows = stack_.geometry.detector().rows, band = rowLast - rowFirst + 1;
  const auto sample = static_cast<std::int64_t>(io::sampleBytes(stack_.sampleType));
  constexpr std::int64_t kPageBytes = 4096;
  const bool runs = band * sample >= kPageBytes;
  std::vector<float> buffer(static_cast<std::size_t>(runs ? band : (views - 1) * rows + band));
  for (std::int64_t c = 0; c < cols; ++c) {
    const std::string what = "column " + std::to_string(c);
    if (runs) {
      for (std::int64_t v = 0; v < views; ++v) {
        io::readSamplesAsFloat(
            *file_,
            stack_.dataOffset +
                productOrThrow("offset", {(c * views + v) * rows + rowFirst, sample}),
            stack_.sampleType, stack_.byteOrder, buffer, what);
        for (std::int64_t r = 0; r < band; ++r) out.at(v, r, c) = buffer[std::size_t(r)];
      }
      continue;
    }
    io::readSamplesAsFloat(
        *file_, stack_.dataOffset + productOrThrow("offset", {c * views * rows + rowFirst, sample}),
        stack_.sampleType, stack_.byteOrder, buffer, what);
    for (std::int64_t v = 0; v < views; ++v)
      for (std::int64_t r = 0; r < band; ++r) out.at(v, r, c) = buffer[std::size_t(v * rows + r)];
  }
  return out;
}

#if TOMOWB_HAVE_TIFF
struct TiffStackRowSource::Reader {
  explicit Reader(const std::filesystem::path& path) : tiff(path) {}
  io::TiffRowReader tiff;
};
#else
struct TiffStackRowSource::Reader {};
#endif

TiffStackRowSource::TiffStackRowSource(io::ProjectionStackOnDisk stack) : stack_(std::move(stack)) {
#if TOMOWB_HAVE_TIFF
  reader_ = std::make_unique<Reader>(stack_.path);
  const io::TiffInfo& info = reader_->tiff.info();
  const bool astra = stack_.layout == io::ProjectionLayout::Astra;
  const std::int64_t views = stack_.geometry.viewCount(), rows = stack_.geometry.detector().rows,
                     cols = stack_.geometry.detector().cols;
  // Ours: a page per view of rows x cols; ASTRA's: a page per row of views x cols.
  const std::int64_t pages = astra ? rows : views, height = astra ? views : rows;
  if (info.width != cols || info.height != height || info.pages != pages)
    throw FormatError(stack_.path, "pages",
                      "hold " + std::to_string(info.pages) + " pages of " +
                          std::to_string(info.width) + "x" + std::to_string(info.height) +
                          " but the geometry needs " + std::to_string(pages) + " of " +
                          std::to_string(cols) + "x" + std::to_string(height));
#else
  throw ParameterError("TIFF", "this build reads no TIFF files (built without libtiff)");
#endif
}

TiffStackRowSource::~TiffStackRowSource() = default;

ProjectionStack TiffStackRowSource::readRows(std::int64_t rowFirst, std::int64_t rowLast) {
  ProjectionStack out(cropRows(stack_.geometry, rowFirst, rowLast));
#if TOMOWB_HAVE_TIFF
  if (stack_.layout == io::ProjectionLayout::Astra) {
    // Page r holds row r of every view: the band's pages on several threads, then each line to
    // its view.
    const std::int64_t views = stack_.geometry.viewCount(), cols = stack_.geometry.detector().cols,
                       band = rowLast - rowFirst + 1;
    std::vector<float> pages(static_cast<std::size_t>(band * views * cols));
    reader_->tiff.readPages(rowFirst, rowLast, pages);
    for (std::int64_t r = 0; r < band; ++r)
      for (std::int64_t v = 0; v < views; ++v)
        std::copy_n(pages.data() + (r * views + v) * cols, cols, &out.at(v, r, 0));
    return out;
  }
  // A page per view: the band of every page, [view][row][col], on several threads.
  reader_->tiff.readRowsOfEveryPage(rowFirst, rowLast, out.pixels());
#endif
  return out;
}

ProjectionStack Hdf5StackRowSource::readRows(std::int64_t rowFirst, std::int64_t rowLast) {
  ProjectionStack out(cropRows(stack_.geometry, rowFirst, rowLast));
  const std::int64_t views = stack_.geometry.viewCount(), cols = stack_.geometry.detector().cols,
                     band = rowLast - rowFirst + 1;
  if (stack_.layout == io::ProjectionLayout::Astra) {
    // Slice r holds row r of every view.
    std::vector<float> block(static_cast<std::size_t>(band * views * cols));
    io::readHdf5VolumeBox(stack_.path, {rowFirst, rowLast + 1, 0, views}, block);
    for (std::int64_t r = 0; r < band; ++r)
      for (std::int64_t v = 0; v < views; ++v)
        std::copy_n(block.data() + (r * views + v) * cols, cols, &out.at(v, r, 0));
    return out;
  }
  // Slice v holds view v: its band of rows is one box, [view][row][col] as the stack holds it.
  io::readHdf5VolumeBox(stack_.path, {0, views, rowFirst, rowLast + 1},
                        {out.data(), static_cast<std::size_t>(out.pixelCount())});
  return out;
}

std::unique_ptr<ProjectionRowSource> openProjectionStackRows(io::ProjectionStackOnDisk stack) {
  if (stack.storage == io::ProjectionStackOnDisk::Storage::TiffPages)
    return std::make_unique<TiffStackRowSource>(std::move(stack));
  if (stack.storage == io::ProjectionStackOnDisk::Storage::Hdf5Dataset)
    return std::make_unique<Hdf5StackRowSource>(std::move(stack));
  return std::make_unique<StackFileRowSource>(std::move(stack));
}

}  // namespace tomowb::scale
