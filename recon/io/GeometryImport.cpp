#include "recon/io/GeometryImport.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/MatrixGeometry.h"
#include "recon/io/InputFile.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb {

namespace {

constexpr std::uint64_t kMaxTextBytes = 256ull << 20;  // 256 MiB of text is ~2M views
constexpr std::size_t kMaxNumbersPerLine = 12;

// The numbers of one line (comments stripped; spaces, tabs, commas or semicolons between), at
// most kMaxNumbersPerLine.
std::vector<double> parseNumbers(std::string line, const std::filesystem::path& path,
                                 std::size_t lineNumber) {
  if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
  for (char& ch : line)
    if (ch == ',' || ch == '\t' || ch == ';' || ch == '\r') ch = ' ';
  const std::string where = "line " + std::to_string(lineNumber);
  std::vector<double> values;
  const char* cursor = line.data();
  const char* end = line.data() + line.size();
  while (cursor < end) {
    if (*cursor == ' ') {
      ++cursor;
      continue;
    }
    double value = 0.0;
    auto [next, err] = std::from_chars(cursor, end, value);
    if (err != std::errc() || (next < end && *next != ' '))
      throw FormatError(
          path, where,
          "not a number: '" +
              std::string(cursor, std::min<std::size_t>(20, std::size_t(end - cursor))) + "'");
    if (!std::isfinite(value)) throw FormatError(path, where, "number is not finite");
    if (values.size() == kMaxNumbersPerLine)
      throw FormatError(path, where, "more than 12 numbers (one view per line)");
    values.push_back(value);
    cursor = next;
  }
  return values;
}

std::string readText(const std::filesystem::path& path) {
  // InputFile refuses pipes and devices by name (a FIFO would block a plain open forever).
  return io::InputFile(path).readAll(kMaxTextBytes, "text file");
}

struct NumberLine {
  std::size_t lineNumber = 0;
  std::vector<double> values;
};

// Every non-empty, non-comment line's numbers.
std::vector<NumberLine> readNumberLines(const std::filesystem::path& path,
                                        const std::string& text) {
  std::vector<NumberLine> lines;
  std::size_t lineNumber = 0, begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::vector<double> values = parseNumbers(text.substr(begin, end - begin), path, ++lineNumber);
    if (!values.empty() && lines.size() >= static_cast<std::size_t>(io::kMaxAxisLength))
      throw FormatError(path, "line " + std::to_string(lineNumber),
                        "more than 2^20 views (one per line)");
    if (!values.empty()) lines.push_back({lineNumber, std::move(values)});
    begin = end + 1;
  }
  if (lines.empty()) throw FormatError(path, "no views found");
  return lines;
}

Eigen::Vector3d vec(const std::array<double, 12>& r, int first) {
  return {r[first], r[first + 1], r[first + 2]};
}

std::array<double, 12> twelve(const std::vector<double>& values) {
  std::array<double, 12> row{};
  std::copy(values.begin(), values.end(), row.begin());
  return row;
}

// Whether a row of 12 numbers reads as a real ASTRA view: u and v non-zero and perpendicular
// within 0.1%; a parallel ray meets the detector plane at more than a grazing angle (|cos| >= 0.1)
// and a cone source sits at least 10 pixel pitches from the detector plane. Projection matrices
// read this way fail: their numbers 7-12 mix rows of the matrix, and the "source" (the first
// row) lies about as far from that plane as the principal point's pixel coordinates.
bool readsAsAstraView(const std::array<double, 12>& r, bool parallel) {
  const Eigen::Vector3d u = vec(r, 6), v = vec(r, 9);
  const double scale = u.norm() * v.norm();
  if (!(scale > 0) || std::abs(u.dot(v)) > 1e-3 * scale) return false;
  const Eigen::Vector3d normal = u.cross(v).normalized();
  if (parallel) return vec(r, 0).norm() > 0 && std::abs(vec(r, 0).normalized().dot(normal)) >= 0.1;
  return std::abs((vec(r, 0) - vec(r, 3)).dot(normal)) > 10.0 * std::max(u.norm(), v.norm());
}

bool startsWithUnitVector(const std::array<double, 12>& r) {
  return std::abs(vec(r, 0).norm() - 1.0) <= 1e-3;
}

constexpr std::string_view kFormatNames = "json, astra-cone, astra-parallel, matrices, tlt";

}  // namespace

std::string_view toString(GeometryFileFormat format) {
  switch (format) {
    case GeometryFileFormat::Json:
      return "json";
    case GeometryFileFormat::AstraCone:
      return "astra-cone";
    case GeometryFileFormat::AstraParallel:
      return "astra-parallel";
    case GeometryFileFormat::Matrices:
      return "matrices";
    case GeometryFileFormat::ImodTilts:
      return "tlt";
  }
  return "unknown";
}

std::string describe(GeometryFileFormat format) {
  switch (format) {
    case GeometryFileFormat::Json:
      return "tomowb geometry JSON";
    case GeometryFileFormat::AstraCone:
      return "ASTRA cone_vec vectors";
    case GeometryFileFormat::AstraParallel:
      return "ASTRA parallel3d_vec vectors";
    case GeometryFileFormat::Matrices:
      return "3x4 projection matrices";
    case GeometryFileFormat::ImodTilts:
      return "IMOD tilt angles";
  }
  return "unknown";
}

GeometryFileFormat geometryFileFormatFromName(std::string_view name, std::string_view option) {
  for (GeometryFileFormat f :
       {GeometryFileFormat::Json, GeometryFileFormat::AstraCone, GeometryFileFormat::AstraParallel,
        GeometryFileFormat::Matrices, GeometryFileFormat::ImodTilts})
    if (name == toString(f)) return f;
  throw ParameterError(
      option, "must be one of " + std::string(kFormatNames) + ", got '" + std::string(name) + "'");
}

DetectedGeometryFormat detectGeometryFileFormat(const std::filesystem::path& path) {
  const std::string text = readText(path);
  const std::size_t first = text.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (first != std::string::npos && text[first] == '{')
    return {GeometryFileFormat::Json, "starts with '{'"};
  std::vector<NumberLine> lines;
  try {
    lines = readNumberLines(path, text);
  } catch (const FormatError& e) {
    throw FormatError(path, std::string(e.what()) +
                                "; a geometry file is our geometry JSON, ASTRA vectors, 3x4 "
                                "matrices or IMOD tilt angles (--geometry-format " +
                                std::string(kFormatNames) + ")");
  }
  const std::size_t count = lines.front().values.size();
  for (const NumberLine& line : lines)
    if (line.values.size() != count)
      throw FormatError(path, "line " + std::to_string(line.lineNumber),
                        "has " + std::to_string(line.values.size()) + " numbers where line " +
                            std::to_string(lines.front().lineNumber) + " has " +
                            std::to_string(count) +
                            ": not a geometry file we recognise (--geometry-format " +
                            std::string(kFormatNames) + ")");
  const std::string n = std::to_string(lines.size());
  if (count == 1) return {GeometryFileFormat::ImodTilts, "one number on each of " + n + " lines"};
  if (count == 4 && lines.size() % 3 == 0)
    return {GeometryFileFormat::Matrices, "4 numbers on each of " + n + " lines (3 per matrix)"};
  if (count != 12)
    throw FormatError(path, std::to_string(count) +
                                " numbers per line: not a geometry file we "
                                "recognise (1 per line: tilt angles; 12: "
                                "ASTRA vectors or matrices; 4: matrices as 3 "
                                "lines each; --geometry-format " +
                                std::string(kFormatNames) + ")");
  std::vector<std::array<double, 12>> rows;
  for (const NumberLine& line : lines) rows.push_back(twelve(line.values));
  const auto all = [&](const auto& test) { return std::all_of(rows.begin(), rows.end(), test); };
  if (all(startsWithUnitVector) && all([](const auto& r) { return readsAsAstraView(r, true); }))
    return {GeometryFileFormat::AstraParallel,
            "12 numbers on each of " + n +
                " lines: unit ray directions meeting a detector with perpendicular u and v"};
  if (all([](const auto& r) { return readsAsAstraView(r, false); }))
    return {GeometryFileFormat::AstraCone,
            "12 numbers on each of " + n +
                " lines: sources far from a detector with perpendicular u and v"};
  return {GeometryFileFormat::Matrices,
          "12 numbers on each of " + n +
              " lines that do not read as ASTRA views (numbers 7-12 are not a detector's "
              "perpendicular axes with the source or ray first)"};
}

std::vector<std::array<double, 12>> readTwelveNumbersPerView(const std::filesystem::path& path,
                                                             bool allowThreeLinesOfFour) {
  const std::vector<NumberLine> lines = readNumberLines(path, readText(path));
  std::vector<std::array<double, 12>> rows;
  const bool fours = allowThreeLinesOfFour && lines.front().values.size() == 4;
  if (fours) {
    if (lines.size() % 3 != 0)
      throw FormatError(path, "has " + std::to_string(lines.size()) +
                                  " lines of 4 numbers, not a multiple of 3 (3 lines per matrix)");
    for (std::size_t i = 0; i < lines.size(); i += 3) {
      std::vector<double> values;
      for (std::size_t k = 0; k < 3; ++k) {
        const NumberLine& line = lines[i + k];
        if (line.values.size() != 4)
          throw FormatError(path, "line " + std::to_string(line.lineNumber),
                            "expected 4 numbers, got " + std::to_string(line.values.size()));
        values.insert(values.end(), line.values.begin(), line.values.end());
      }
      rows.push_back(twelve(values));
    }
    return rows;
  }
  for (const NumberLine& line : lines) {
    if (line.values.size() != 12)
      throw FormatError(path, "line " + std::to_string(line.lineNumber),
                        "expected 12 numbers, got " + std::to_string(line.values.size()));
    rows.push_back(twelve(line.values));
  }
  return rows;
}

BeamKind beamOfMatrices(const std::vector<std::array<double, 12>>& rows) {
  for (const auto& r : rows)
    if (r[8] != 0 || r[9] != 0 || r[10] != 0) return BeamKind::Cone;
  return BeamKind::Parallel;
}

Geometry importAstraVectors(const std::filesystem::path& path, BeamKind beam,
                            DetectorShape detector) {
  const auto rows = readTwelveNumbersPerView(path);
  std::vector<View> views;
  views.reserve(rows.size());
  for (const auto& r : rows) {
    View view;
    if (beam == BeamKind::Cone)
      view.source = vec(r, 0);
    else
      view.rayDirection = vec(r, 0).normalized();
    view.detectorCentre = vec(r, 3);
    view.u = vec(r, 6);
    view.v = vec(r, 9);
    views.push_back(view);
  }
  Geometry g(beam, detector, std::move(views));
  try {
    g.validate();
  } catch (const ParameterError& e) {
    throw FormatError(path, e.what());
  }
  return g;
}

Geometry importMatrixText(const std::filesystem::path& path, BeamKind beam, DetectorShape detector,
                          double pixelPitchMm) {
  const auto rows = readTwelveNumbersPerView(path, true);
  std::vector<ProjectionMatrix> matrices;
  matrices.reserve(rows.size());
  for (const auto& r : rows) {
    ProjectionMatrix p;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        p(i, j) = r[4 * static_cast<std::size_t>(i) + static_cast<std::size_t>(j)];
    matrices.push_back(p);
  }
  try {
    return geometryFromMatrices(beam, detector, matrices, pixelPitchMm);
  } catch (const ParameterError& e) {
    throw FormatError(path, e.what());
  }
}

}  // namespace tomowb
