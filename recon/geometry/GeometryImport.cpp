#include "recon/geometry/GeometryImport.h"

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

// The numbers of one line (comments stripped; spaces, tabs, commas or semicolons between).
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
    if (values.size() == 12)
      throw FormatError(path, where, "more than 12 numbers (one view per line)");
    values.push_back(value);
    cursor = next;
  }
  if (!values.empty() && values.size() != 12)
    throw FormatError(path, where, "expected 12 numbers, got " + std::to_string(values.size()));
  return values;
}

// Each non-empty, non-comment line as 12 doubles.
std::vector<std::array<double, 12>> readTwelvePerLine(const std::filesystem::path& path) {
  // InputFile refuses pipes and devices by name (a FIFO would block a plain open forever).
  const std::string text = io::InputFile(path).readAll(kMaxTextBytes, "text file");
  std::vector<std::array<double, 12>> rows;
  std::size_t lineNumber = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    const std::vector<double> values = parseNumbers(line, path, ++lineNumber);
    if (values.empty()) continue;
    if (rows.size() >= static_cast<std::size_t>(io::kMaxAxisLength))
      throw FormatError(path, "line " + std::to_string(lineNumber),
                        "more than 2^20 views (one per line)");
    std::array<double, 12> row{};
    std::copy(values.begin(), values.end(), row.begin());
    rows.push_back(row);
  }
  if (rows.empty()) throw FormatError(path, "no views found");
  return rows;
}

Eigen::Vector3d vec(const std::array<double, 12>& r, int first) {
  return {r[first], r[first + 1], r[first + 2]};
}

}  // namespace

Geometry importAstraVectors(const std::filesystem::path& path, BeamKind beam,
                            DetectorShape detector) {
  const auto rows = readTwelvePerLine(path);
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
  const auto rows = readTwelvePerLine(path);
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
