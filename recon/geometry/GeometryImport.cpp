#include "recon/geometry/GeometryImport.h"

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/geometry/MatrixGeometry.h"

namespace tomowb {

namespace {

constexpr std::uintmax_t kMaxTextBytes = 256ull << 20;  // 256 MiB of text is ~2M views

// Each non-empty, non-comment line as 12 doubles.
std::vector<std::array<double, 12>> readTwelvePerLine(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw IoError(path, "cannot open: " + ec.message());
  if (size > kMaxTextBytes) throw FormatError(path, "text file larger than 256 MiB");
  std::ifstream in(path);
  if (!in) throw IoError(path, "cannot open for reading");
  std::vector<std::array<double, 12>> rows;
  std::string line;
  std::size_t lineNumber = 0;
  while (std::getline(in, line)) {
    ++lineNumber;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    for (char& ch : line)
      if (ch == ',' || ch == '\t' || ch == ';' || ch == '\r') ch = ' ';
    std::array<double, 12> values{};
    int count = 0;
    const char* cursor = line.data();
    const char* end = line.data() + line.size();
    while (cursor < end) {
      while (cursor < end && *cursor == ' ') ++cursor;
      if (cursor == end) break;
      double value = 0.0;
      auto [next, err] = std::from_chars(cursor, end, value);
      if (err != std::errc() || (next < end && *next != ' '))
        throw FormatError(
            path, "line " + std::to_string(lineNumber),
            "not a number: '" + std::string(cursor, std::min<std::size_t>(20, end - cursor)) + "'");
      if (!std::isfinite(value))
        throw FormatError(path, "line " + std::to_string(lineNumber), "number is not finite");
      if (count == 12)
        throw FormatError(path, "line " + std::to_string(lineNumber),
                          "more than 12 numbers (one view per line)");
      values[static_cast<std::size_t>(count++)] = value;
      cursor = next;
    }
    if (count == 0) continue;
    if (count != 12)
      throw FormatError(path, "line " + std::to_string(lineNumber),
                        "expected 12 numbers, got " + std::to_string(count));
    rows.push_back(values);
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
      for (int j = 0; j < 4; ++j) p(i, j) = r[static_cast<std::size_t>(i * 4 + j)];
    matrices.push_back(p);
  }
  try {
    return geometryFromMatrices(beam, detector, matrices, pixelPitchMm);
  } catch (const ParameterError& e) {
    throw FormatError(path, e.what());
  }
}

}  // namespace tomowb
