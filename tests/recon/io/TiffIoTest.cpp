#include <gtest/gtest.h>
#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/TiffIo.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

// Writes pages with libtiff directly, as another program would: value = 50 page + 10 y + x.
struct ForeignTiff {
  std::uint32_t width = 5, height = 4, pages = 2;
  std::uint16_t bits = 8, format = SAMPLEFORMAT_UINT, compression = COMPRESSION_NONE;
  bool tiled = false;
  std::vector<std::uint32_t> widths;  // per page, if set
  std::vector<bool> reduced;          // per page, if set: a reduced-resolution image (a preview)
  void write(const std::filesystem::path& path) const {
    TIFF* tif = TIFFOpen(path.c_str(), "w");
    ASSERT_NE(tif, nullptr);
    for (std::uint32_t p = 0; p < pages; ++p) {
      const bool preview = !reduced.empty() && reduced[p];
      const std::uint32_t w = preview ? 2 : widths.empty() ? width : widths[p];
      if (preview) TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_REDUCEDIMAGE);
      TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
      TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
      TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bits);
      TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, format);
      TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
      TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
      TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
      const std::size_t bytes = bits / 8;
      auto fill = [&](std::vector<char>& buffer, std::uint32_t x0, std::uint32_t y0,
                      std::uint32_t bw, std::uint32_t bh) {
        for (std::uint32_t y = 0; y < bh; ++y)
          for (std::uint32_t x = 0; x < bw; ++x) {
            const bool inside = x0 + x < w && y0 + y < height;  // tiles overhang the edges
            const double v = inside ? 50.0 * p + 10.0 * (y0 + y) + (x0 + x) : 0.0;
            char* dst = buffer.data() + (y * bw + x) * bytes;
            if (format == SAMPLEFORMAT_IEEEFP) {
              const float f = static_cast<float>(v);
              std::memcpy(dst, &f, 4);
            } else if (bits == 8) {
              *reinterpret_cast<std::uint8_t*>(dst) = static_cast<std::uint8_t>(v);
            } else {
              const auto s = static_cast<std::int16_t>(format == SAMPLEFORMAT_INT ? -v : v);
              std::memcpy(dst, &s, 2);
            }
          }
      };
      if (tiled) {
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, 16);
        std::vector<char> tile(16 * 16 * bytes);
        for (std::uint32_t y = 0; y < height; y += 16)
          for (std::uint32_t x = 0; x < w; x += 16) {
            fill(tile, x, y, 16, 16);
            TIFFWriteTile(tif, tile.data(), x, y, 0, 0);
          }
      } else {
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 3);
        std::vector<char> row(w * bytes);
        for (std::uint32_t y = 0; y < height; ++y) {
          fill(row, 0, y, w, 1);
          TIFFWriteScanline(tif, row.data(), y, 0);
        }
      }
      TIFFWriteDirectory(tif);
    }
    TIFFClose(tif);
  }
};

// A classic little-endian TIFF written byte by byte: header, `data` at offset 8, then one IFD of
// single-valued entries (tag, type 3 = SHORT or 4 = LONG, value), then the next-IFD offset.
struct Entry {
  std::uint16_t tag, type;
  std::uint32_t value;
};
std::string handMadeTiff(std::vector<Entry> entries, const std::string& data, bool loop = false) {
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.tag < b.tag; });
  std::string bytes = "II*";
  bytes += '\0';
  const std::uint32_t ifd = static_cast<std::uint32_t>(8 + data.size());
  test::appendValue(bytes, ifd);
  bytes += data;
  test::appendValue(bytes, static_cast<std::uint16_t>(entries.size()));
  for (const Entry& e : entries) {
    test::appendValue(bytes, e.tag);
    test::appendValue(bytes, e.type);
    test::appendValue(bytes, std::uint32_t{1});
    if (e.type == 3) {
      test::appendValue(bytes, static_cast<std::uint16_t>(e.value));
      test::appendValue(bytes, std::uint16_t{0});
    } else {
      test::appendValue(bytes, e.value);
    }
  }
  test::appendValue(bytes, loop ? ifd : std::uint32_t{0});
  return bytes;
}

std::vector<Entry> grayEntries(std::uint32_t width, std::uint32_t height, std::uint16_t compression,
                               std::uint32_t stripBytes, std::uint32_t stripOffset = 8) {
  return {{256, 4, width},       {257, 4, height}, {258, 3, 8},
          {259, 3, compression}, {262, 3, 1},      {273, 4, stripOffset},
          {277, 3, 1},           {278, 4, height}, {279, 4, stripBytes}};
}

TEST(TiffIo, Float32MultiPageRoundTripsExactlyWithVoxelSizeAndOrigin) {
  test::TempDir dir;
  const Volume v = test::randomVolume({9, 7, 5}, test::randomSeed());
  writeTiffVolume(dir / "v.tif", v);
  test::expectSameVolume(readTiffVolume(dir / "v.tif"), v);
  const TiffInfo info = readTiffInfo(dir / "v.tif");
  EXPECT_EQ(info.pages, 5);
  EXPECT_EQ(info.sampleType, SampleType::Float32);
  EXPECT_TRUE(info.hasOurMetadata);
}

TEST(TiffIo, Uint16MappingRoundTripsWithinHalfAStepAndIsPlain16BitForOthers) {
  test::TempDir dir;
  const Volume v = test::randomVolume({8, 6, 3}, test::randomSeed());
  const TiffWriteOptions options{TiffSampleType::UInt16, 0.01, -200.0};
  writeTiffVolume(dir / "v.tif", v, options);
  const TiffInfo info = readTiffInfo(dir / "v.tif");
  EXPECT_EQ(info.sampleType, SampleType::UInt16);
  EXPECT_EQ(info.slope, 0.01);
  EXPECT_EQ(info.intercept, -200.0);
  const Volume back = readTiffVolume(dir / "v.tif");
  for (std::int64_t i = 0; i < v.voxelCount(); ++i)
    EXPECT_NEAR(back.voxels()[static_cast<std::size_t>(i)], v.voxels()[static_cast<std::size_t>(i)],
                0.0051);
}

TEST(TiffIo, Uint16ValueOutsideTheRangeIsAParameterErrorAndLeavesNoFile) {
  test::TempDir dir;
  Volume v = test::randomVolume({4, 4, 2}, 7);
  v.at(2, 3, 1) = 1e6f;
  EXPECT_THROW(writeTiffVolume(dir / "v.tif", v, {TiffSampleType::UInt16, 1.0, -100.0}),
               ParameterError);
  v.at(2, 3, 1) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(writeTiffVolume(dir / "v.tif", v, {TiffSampleType::UInt16, 1.0, -100.0}),
               ParameterError);
  EXPECT_THROW(writeTiffVolume(dir / "v.tif", v, {TiffSampleType::UInt16, 0.0, 0.0}),
               ParameterError);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(TiffIo, SliceSeriesRoundTripsInOrder) {
  test::TempDir dir;
  const Volume v = test::randomVolume({6, 5, 12}, test::randomSeed());
  writeTiffSlices(dir / "series", v);
  EXPECT_TRUE(std::filesystem::exists(dir / "series" / "slice_0011.tif"));
  test::expectSameVolume(readTiffSlices(dir / "series"), v);
  test::expectSameVolume(readTiffSlices(dir / "series" / "slice_0003.tif"), v);
  EXPECT_EQ(readTiffInfo(dir / "series").pages, 12);
}

TEST(TiffIo, ListsSlicesInNaturalOrderAndOnlyTheSiblingsOfAGivenFile) {
  test::TempDir dir;
  for (const char* name :
       {"s_10.tif", "s_2.tif", "s_1.TIFF", "other_1.tif", "notes.txt", ".s_3.tif"})
    test::writeBytes(dir / name, "x");
  const auto all = listTiffSlices(dir.path());
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].filename(), "other_1.tif");
  EXPECT_EQ(all[1].filename(), "s_1.TIFF");
  EXPECT_EQ(all[2].filename(), "s_2.tif");
  EXPECT_EQ(all[3].filename(), "s_10.tif");
  const auto siblings = listTiffSlices(dir / "s_2.tif");
  ASSERT_EQ(siblings.size(), 2u);
  EXPECT_EQ(siblings[1].filename(), "s_10.tif");
}

TEST(TiffIo, ASeriesWithAMissingSliceFileIsRefused) {
  test::TempDir dir;
  writeTiffSlices(dir / "series", test::randomVolume({3, 2, 4}, 1));
  std::filesystem::remove(dir / "series" / "slice_0002.tif");
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffSlices(dir / "series"), "slice_0000.tif", "3 slice files");
}

TEST(TiffIo, WritingSlicesIntoAFolderThatHoldsFilesFailsAndKeepsThem) {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "series");
  test::writeBytes(dir / "series" / "keep.txt", "x");
  EXPECT_THROW(writeTiffSlices(dir / "series", test::randomVolume({2, 2, 2}, 1)), IoError);
  EXPECT_EQ(test::readBytes(dir / "series" / "keep.txt"), "x");
}

TEST(TiffIo, ProjectionsRoundTripAndMustMatchTheGeometry) {
  test::TempDir dir;
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 800;
  p.detector.cols = 6;
  p.detector.rows = 3;
  p.anglesRad = fullScanAnglesRad(4);
  const Geometry g = circularConeBeam(p);
  ProjectionStack stack(g);
  std::mt19937 random(static_cast<unsigned>(test::randomSeed()));
  std::uniform_real_distribution<float> value(0, 5);
  for (float& x : stack.pixels()) x = value(random);
  writeTiffProjections(dir / "p.tif", stack);
  const ProjectionStack back = readTiffProjections(dir / "p.tif", g);
  EXPECT_TRUE(std::equal(back.pixels().begin(), back.pixels().end(), stack.pixels().begin()));
  p.anglesRad = fullScanAnglesRad(5);
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffProjections(dir / "p.tif", circularConeBeam(p)), dir / "p.tif",
                             "views");
  p.anglesRad = fullScanAnglesRad(4);
  p.detector.cols = 7;
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffProjections(dir / "p.tif", circularConeBeam(p)), dir / "p.tif",
                             "detector");
}

TEST(TiffIo, ReadsStripsTilesAndCodecsOfOtherPrograms) {
  test::TempDir dir;
  for (const std::uint16_t compression :
       {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE, COMPRESSION_PACKBITS}) {
    for (const bool tiled : {false, true}) {
      for (const auto& [bits, format] :
           {std::pair<std::uint16_t, std::uint16_t>{8, SAMPLEFORMAT_UINT},
            {16, SAMPLEFORMAT_UINT},
            {16, SAMPLEFORMAT_INT},
            {32, SAMPLEFORMAT_IEEEFP}}) {
        ForeignTiff t;
        t.width = 21;
        t.height = 18;
        t.bits = bits;
        t.format = format;
        t.compression = compression;
        t.tiled = tiled;
        t.write(dir / "f.tif");
        const Volume v = readTiffVolume(dir / "f.tif");
        const float sign = format == SAMPLEFORMAT_INT ? -1.0f : 1.0f;
        ASSERT_EQ(v.shape(), (VolumeShape{21, 18, 2}));
        EXPECT_EQ(v.at(20, 17, 1), sign * 240.0f) << compression << " " << tiled << " " << bits;
        EXPECT_EQ(v.at(3, 2, 0), sign * 23.0f);
        // No metadata of ours: 1 mm voxels, centred on the origin.
        EXPECT_EQ(v.voxelSizeMm(), Eigen::Vector3d::Ones());
        EXPECT_EQ(v.originMm(), Eigen::Vector3d(-10, -8.5, -0.5));
      }
    }
  }
}

// A 21 x 37 uint16 stack of `pages` pages in strips of 3 rows or 16 x 16 tiles, as the whole
// file reads back: the reference of the row reader's tests.
Volume writeRowReaderStack(const std::filesystem::path& path, std::uint32_t pages,
                           std::uint16_t compression, bool tiled) {
  ForeignTiff t;
  t.width = 21;
  t.height = 37;
  t.pages = pages;
  t.bits = 16;
  t.compression = compression;
  t.tiled = tiled;
  t.write(path);
  return readTiffVolume(path);
}

// Out of core (issue #22, point 2): every band of rows of every page, read by TiffRowReader
// (strips of 3 rows, 16 x 16 tiles, compressed or not), equals those rows of the whole file, also
// for a band inside one strip or tile and one that crosses several; a series reads the same.
TEST(TiffIo, RowReaderGivesEveryBandOfEveryPageAsTheWholeFileHasIt) {
  test::TempDir dir;
  for (const std::uint16_t compression : {COMPRESSION_NONE, COMPRESSION_ADOBE_DEFLATE}) {
    for (const bool tiled : {false, true}) {
      const Volume whole = writeRowReaderStack(dir / "f.tif", 3, compression, tiled);
      TiffRowReader reader(dir / "f.tif");
      ASSERT_EQ(reader.info().pages, 3);
      ASSERT_EQ(reader.info().height, 37);
      for (const auto& [first, last] : {std::pair<std::int64_t, std::int64_t>{0, 36},
                                        {4, 4},
                                        {1, 2},
                                        {2, 20},
                                        {15, 16},
                                        {33, 36}}) {
        for (std::int64_t page : {2, 0, 1}) {  // out of order: the reader moves between pages
          std::vector<float> band(static_cast<std::size_t>((last - first + 1) * 21));
          reader.readRows(page, first, last, band);
          for (std::int64_t y = first; y <= last; ++y)
            for (std::int64_t x = 0; x < 21; ++x)
              ASSERT_EQ(band[static_cast<std::size_t>((y - first) * 21 + x)], whole.at(x, y, page))
                  << compression << " tiled " << tiled << " page " << page << " rows " << first
                  << ".." << last << " at " << x << "," << y;
        }
      }
      std::vector<float> one(21);
      EXPECT_THROW(reader.readRows(3, 0, 0, one), ParameterError);
      EXPECT_THROW(reader.readRows(0, 37, 37, one), ParameterError);
    }
  }
  // A series of our uint16 files: the mapping undone as readTiffSlices does.
  Volume v({5, 9, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (std::size_t i = 0; i < v.voxels().size(); ++i) v.voxels()[i] = 0.25f * float(i % 61);
  writeTiffSlices(dir / "series", v, {TiffSampleType::UInt16, 0.25, 0.0});
  const Volume series = readTiffSlices(dir / "series");
  TiffRowReader reader(dir / "series");
  ASSERT_EQ(reader.info().pages, 4);
  std::vector<float> band(3 * 5);
  reader.readRows(3, 6, 8, band);
  for (std::int64_t y = 6; y <= 8; ++y)
    for (std::int64_t x = 0; x < 5; ++x)
      EXPECT_EQ(band[static_cast<std::size_t>((y - 6) * 5 + x)], series.at(x, y, 3));
}

// The band of every page at once (readRowsOfEveryPage, on several threads, each with its own
// reader over a run of pages): the same samples as the whole file, page after page, for a stack
// of more pages than threads, compressed or not, in strips or tiles, and for a series with our
// uint16 mapping; a buffer of the wrong size is refused.
TEST(TiffIo, RowReaderGivesTheBandOfEveryPageAtOnceOnSeveralThreads) {
  test::TempDir dir;
  for (const std::uint16_t compression : {COMPRESSION_NONE, COMPRESSION_ADOBE_DEFLATE}) {
    for (const bool tiled : {false, true}) {
      const Volume whole = writeRowReaderStack(dir / "f.tif", 41, compression, tiled);
      TiffRowReader reader(dir / "f.tif");
      for (const auto& [first, last] :
           {std::pair<std::int64_t, std::int64_t>{0, 36}, {4, 4}, {15, 33}}) {
        const std::int64_t band = last - first + 1;
        std::vector<float> got(static_cast<std::size_t>(41 * band * 21), -1.0f);
        reader.readRowsOfEveryPage(first, last, got);
        std::size_t wrong = 0;
        for (std::int64_t page = 0; page < 41; ++page)
          for (std::int64_t y = first; y <= last; ++y)
            for (std::int64_t x = 0; x < 21; ++x)
              wrong += got[static_cast<std::size_t>((page * band + y - first) * 21 + x)] !=
                       whole.at(x, y, page);
        EXPECT_EQ(wrong, 0u) << compression << " tiled " << tiled << " rows " << first << ".."
                             << last;
      }
      std::vector<float> short1(static_cast<std::size_t>(41 * 21 - 1));
      EXPECT_THROW(reader.readRowsOfEveryPage(0, 0, short1), ParameterError);
      // Whole pages 10..13 (ASTRA's layout reads a band's pages so).
      std::vector<float> pages(static_cast<std::size_t>(4 * 37 * 21), -1.0f);
      reader.readPages(10, 13, pages);
      EXPECT_TRUE(std::equal(pages.begin(), pages.end(), whole.data() + 10 * 37 * 21))
          << compression << " tiled " << tiled;
      EXPECT_THROW(reader.readPages(39, 41, pages), ParameterError);
    }
  }
  Volume v({5, 9, 11}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (std::size_t i = 0; i < v.voxels().size(); ++i) v.voxels()[i] = 0.25f * float(i % 61);
  writeTiffSlices(dir / "series", v, {TiffSampleType::UInt16, 0.25, 0.0});
  TiffRowReader reader(dir / "series");
  std::vector<float> got(static_cast<std::size_t>(11 * 3 * 5));
  reader.readRowsOfEveryPage(2, 4, got);
  for (std::int64_t page = 0; page < 11; ++page)
    for (std::int64_t y = 2; y <= 4; ++y)
      for (std::int64_t x = 0; x < 5; ++x)
        ASSERT_EQ(got[static_cast<std::size_t>((page * 3 + y - 2) * 5 + x)], v.at(x, y, page))
            << page << " " << x << "," << y;
}

// Previews (reduced-resolution pages) between the full pages are skipped: the full pages are
// read by their headers' offsets, on several threads, whole and as bands.
TEST(TiffIo, ReducedResolutionPagesBetweenTheFullPagesAreSkipped) {
  test::TempDir dir;
  ForeignTiff t;
  t.width = 7;
  t.height = 9;
  t.pages = 6;
  t.bits = 16;
  t.reduced = {false, true, false, true, true, false};  // full pages: directories 0, 2 and 5
  t.write(dir / "p.tif");
  const Volume v = readTiffVolume(dir / "p.tif");
  ASSERT_EQ(v.shape(), (VolumeShape{7, 9, 3}));
  const int directory[] = {0, 2, 5};
  for (std::int64_t z = 0; z < 3; ++z)
    for (std::int64_t y = 0; y < 9; ++y)
      for (std::int64_t x = 0; x < 7; ++x)
        ASSERT_EQ(v.at(x, y, z), 50.0f * float(directory[z]) + 10.0f * float(y) + float(x))
            << x << "," << y << "," << z;
  TiffRowReader reader(dir / "p.tif");
  std::vector<float> band(3 * 2 * 7);
  reader.readRowsOfEveryPage(4, 5, band);
  for (std::int64_t page = 0; page < 3; ++page)
    for (std::int64_t y = 4; y <= 5; ++y)
      for (std::int64_t x = 0; x < 7; ++x)
        EXPECT_EQ(band[static_cast<std::size_t>((page * 2 + y - 4) * 7 + x)], v.at(x, y, page));
}

TEST(TiffIo, RejectsPagesOfDifferentSizesNamingThePage) {
  test::TempDir dir;
  ForeignTiff t;
  t.widths = {5, 6};
  t.write(dir / "m.tif");
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "m.tif"), dir / "m.tif", "page 1");
}

TEST(TiffIo, RejectsTruncatedFilesAtSeveralBoundariesNamingThem) {
  test::TempDir dir;
  writeTiffVolume(dir / "v.tif", test::randomVolume({8, 8, 3}, test::randomSeed()));
  const std::string bytes = test::readBytes(dir / "v.tif");
  for (std::size_t cut : test::cutPoints(bytes.size(), {256, 300, 512, 1000})) {
    test::writeBytes(dir / "t.tif", bytes.substr(0, cut));
    TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "t.tif"), dir / "t.tif", "");
  }
}

TEST(TiffIo, RejectsADeflateBombBeforeAllocating) {
  test::TempDir dir;
  test::writeBytes(
      dir / "bomb.tif",
      handMadeTiff(grayEntries(10000, 10000, COMPRESSION_ADOBE_DEFLATE, 10), std::string(10, 'x')));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "bomb.tif"), dir / "bomb.tif", "expand");
}

TEST(TiffIo, RejectsStripsOutsideTheFile) {
  test::TempDir dir;
  test::writeBytes(dir / "s.tif", handMadeTiff(grayEntries(4, 4, COMPRESSION_NONE, 16, 100000),
                                               std::string(4, 'x')));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "s.tif"), dir / "s.tif", "page 0");
}

TEST(TiffIo, RejectsZeroWidthRgbAnd12BitPages) {
  test::TempDir dir;
  test::writeBytes(dir / "z.tif",
                   handMadeTiff(grayEntries(0, 4, COMPRESSION_NONE, 16), std::string(16, 'x')));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "z.tif"), dir / "z.tif", "");
  auto rgb = grayEntries(2, 2, COMPRESSION_NONE, 12);
  rgb[4].value = 2;  // photometric RGB
  rgb[6].value = 3;  // samples per pixel
  test::writeBytes(dir / "rgb.tif", handMadeTiff(rgb, std::string(12, 'x')));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "rgb.tif"), dir / "rgb.tif", "grayscale");
  auto twelve = grayEntries(2, 2, COMPRESSION_NONE, 6);
  twelve[2].value = 12;
  test::writeBytes(dir / "12.tif", handMadeTiff(twelve, std::string(6, 'x')));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "12.tif"), dir / "12.tif", "12-bit");
}

// D25 of the hostile-input review: a looping chain was read as one page, silently.
TEST(TiffIo, RefusesAPageChainThatLoopsBackOnItself) {
  test::TempDir dir;
  test::writeBytes(dir / "loop.tif", handMadeTiff(grayEntries(4, 4, COMPRESSION_NONE, 16),
                                                  std::string(16, '\1'), true));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "loop.tif"), dir / "loop.tif", "loops back");
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffInfo(dir / "loop.tif"), dir / "loop.tif", "loops back");
}

// D25: an uncompressed strip whose StripByteCounts says 4 GiB in a 200-byte file was accepted.
TEST(TiffIo, RefusesAStripByteCountBeyondTheEndOfTheFile) {
  test::TempDir dir;
  test::writeBytes(dir / "s.tif", handMadeTiff(grayEntries(4, 4, COMPRESSION_NONE, 0xFFFFFFFFu),
                                               std::string(16, 'x')));
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "s.tif"), dir / "s.tif",
                             "page 0 StripByteCounts");
}

// D19: a description that claims to be ours (a JSON object naming "tomowb-tiff") but does not
// parse was treated as foreign, and the uint16 codes came back unmapped (1000 instead of 1.0).
TEST(TiffIo, RefusesAnUnreadableDescriptionThatClaimsToBeOurs) {
  const auto file = std::filesystem::path(TOMOWB_TEST_DATA_DIR) / "io" / "hostile" /
                    "unreadable-own-description.tif";
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(file), file, "ImageDescription");
  test::TempDir dir;
  const Volume v = test::randomVolume({3, 2, 1}, 7);
  writeTiffVolume(dir / "ok.tif", v);
  // Free text that merely mentions the name is someone else's description: read as foreign.
  std::string bytes = test::readBytes(dir / "ok.tif");
  const std::size_t at = bytes.find("{\"");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'X';  // the description no longer starts with '{'
  test::writeBytes(dir / "foreign.tif", bytes);
  EXPECT_FALSE(readTiffInfo(dir / "foreign.tif").hasOurMetadata);
  bytes[at] = '{';
  const std::size_t number = bytes.find("\"voxelSizeMm\":[");
  ASSERT_NE(number, std::string::npos);
  bytes[number + 15] = 'x';  // an unparsable number
  test::writeBytes(dir / "bad.tif", bytes);
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffInfo(dir / "bad.tif"), dir / "bad.tif", "tomowb-tiff");
}

TEST(TiffIo, NeverPrintsLibtiffMessages) {
  test::TempDir dir;
  test::writeBytes(dir / "bad.tif", "II*\0garbage garbage garbage");
  testing::internal::CaptureStderr();
  EXPECT_THROW(readTiffVolume(dir / "bad.tif"), FormatError);
  EXPECT_THROW(readTiffVolume(dir / "missing.tif"), IoError);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(TiffIo, NotATiffIsAFormatErrorNamingTheFile) {
  test::TempDir dir;
  test::writeBytes(dir / "n.tif", "this is text");
  TOMOWB_EXPECT_FORMAT_ERROR(readTiffVolume(dir / "n.tif"), dir / "n.tif", "not a readable TIFF");
}

}  // namespace
}  // namespace tomowb::io
