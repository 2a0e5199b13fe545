#include "recon/io/ImodFiles.h"

#include <Eigen/LU>
#include <Eigen/SVD>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string_view>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/InputFile.h"
#include "recon/io/ReaderLimits.h"

namespace tomowb::io {

namespace {

// A tilt series of 2^20 views has an .xf of about 80 MiB at IMOD's 76 characters a line; real
// ones have at most a few hundred lines. 16 MiB holds 200 000 .xf lines.
constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{16} << 20;
constexpr std::size_t kXfFieldWidth = 12;
// Tilt and x-axis tilt angles (degrees): a tilt series covers at most one turn.
constexpr double kMaxTiltDeg = 360.0;

std::string quoted(std::string_view text) {
  std::string shown(text.substr(0, 40));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return "'" + shown + (text.size() > 40 ? "...'" : "'");
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isSpace(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !isSpace(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

// One number filling the whole field, finite; nullopt otherwise.
std::optional<double> parseNumber(std::string_view field) {
  while (!field.empty() && isSpace(field.front())) field.remove_prefix(1);
  while (!field.empty() && isSpace(field.back())) field.remove_suffix(1);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc() || end != field.data() + field.size() ||
      !std::isfinite(value))
    return std::nullopt;
  return value;
}

// Calls `parseLine(lineNumber, fields)` for each non-blank line of the file.
template <typename ParseLine>
void forEachLine(const std::filesystem::path& path, ParseLine&& parseLine) {
  const InputFile file(path);
  const std::string text = file.readAll(kMaxTextFileBytes, "text file");
  std::size_t lineNumber = 0, entries = 0, pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++lineNumber;
    const auto fields = splitFields(line);
    if (fields.empty()) continue;
    if (++entries > static_cast<std::size_t>(kMaxAxisLength))
      throw FormatError(path, "line " + std::to_string(lineNumber),
                        "more than 2^20 entries (one per view)");
    parseLine(lineNumber, line, fields);
  }
}

std::vector<double> readOneAnglePerLine(const std::filesystem::path& path) {
  std::vector<double> values;
  forEachLine(path, [&](std::size_t lineNumber, std::string_view line,
                        const std::vector<std::string_view>& fields) {
    const auto value = fields.size() == 1 ? parseNumber(fields[0]) : std::nullopt;
    if (!value)
      throw FormatError(path, "line " + std::to_string(lineNumber),
                        "expected one angle in degrees, got " + quoted(line));
    // 1e300 degrees is finite, but its sine is noise: a tilt is at most one turn either way.
    if (std::abs(*value) > kMaxTiltDeg)
      throw FormatError(path, "line " + std::to_string(lineNumber),
                        "angle " + quoted(fields[0]) + " is beyond +-360 degrees");
    values.push_back(*value);
  });
  return values;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace

Eigen::Vector2d XfTransform::shiftAboutGeometricCentre() const {
  const Eigen::Vector2d h(0.5, 0.5);
  return shiftPixels + (Eigen::Matrix2d::Identity() - a) * h;
}

XfDecomposition decompose(const Eigen::Matrix2d& a) {
  XfDecomposition d;
  d.rotationRad = std::atan2(a(1, 0) - a(0, 1), a(0, 0) + a(1, 1));
  const double det = a.determinant();
  d.mirrored = det < 0;
  d.magnification = std::sqrt(std::abs(det));
  const Eigen::Vector2d singular = Eigen::JacobiSVD<Eigen::Matrix2d>(a).singularValues();
  d.stretch = singular(1) > 0 ? singular(0) / singular(1) : std::numeric_limits<double>::infinity();
  const Eigen::Vector2d ax = a.col(0), ay = a.col(1);
  const double norms = ax.norm() * ay.norm();
  d.skewRad = norms > 0 ? std::asin(std::clamp(ax.dot(ay) / norms, -1.0, 1.0)) : 0.0;
  return d;
}

std::vector<double> readTiltAnglesDeg(const std::filesystem::path& path) {
  return readOneAnglePerLine(path);
}

std::vector<double> readXAxisTiltsDeg(const std::filesystem::path& path) {
  return readOneAnglePerLine(path);
}

std::vector<XfTransform> readXf(const std::filesystem::path& path) {
  std::vector<XfTransform> transforms;
  forEachLine(path, [&](std::size_t lineNumber, std::string_view line,
                        std::vector<std::string_view> fields) {
    // IMOD writes 6 fields of 12 characters; large numbers can fill a field and touch the next.
    if (fields.size() != 6 && line.find_last_not_of(" \t\r") + 1 == 6 * kXfFieldWidth) {
      fields.clear();
      for (std::size_t i = 0; i < 6; ++i)
        fields.push_back(line.substr(i * kXfFieldWidth, kXfFieldWidth));
    }
    const std::string where = "line " + std::to_string(lineNumber);
    if (fields.size() != 6)
      throw FormatError(path, where,
                        "expected 6 numbers (A11 A12 A21 A22 DX DY), got " +
                            std::to_string(fields.size()) + " fields: " + quoted(line));
    double v[6];
    for (std::size_t i = 0; i < 6; ++i) {
      const auto value = parseNumber(fields[i]);
      if (!value)
        throw FormatError(
            path, where,
            "field " + std::to_string(i + 1) + " is not a finite number: " + quoted(fields[i]));
      v[i] = *value;
    }
    XfTransform t;
    t.a << v[0], v[1], v[2], v[3];
    t.shiftPixels << v[4], v[5];
    // A singular A maps a whole image onto a line: no alignment program writes one.
    if (!(std::abs(t.a.determinant()) > 1e-6))
      throw FormatError(path, where, "the matrix A11 A12 A21 A22 is singular");
    transforms.push_back(t);
  });
  return transforms;
}

void writeTiltAnglesDeg(const std::filesystem::path& path, const std::vector<double>& anglesDeg) {
  std::string text;
  for (std::size_t i = 0; i < anglesDeg.size(); ++i) {
    if (!std::isfinite(anglesDeg[i]))
      throw ParameterError("anglesDeg[" + std::to_string(i) + "]", "is not finite");
    text += fixed(anglesDeg[i], 4) + "\n";
  }
  AtomicFileWriter out(path);
  out.write(text);
  out.commit();
}

void writeXf(const std::filesystem::path& path, const std::vector<XfTransform>& transforms) {
  std::string text;
  for (std::size_t i = 0; i < transforms.size(); ++i) {
    const XfTransform& t = transforms[i];
    if (!t.a.allFinite() || !t.shiftPixels.allFinite())
      throw ParameterError("transforms[" + std::to_string(i) + "]", "is not finite");
    const double values[6] = {t.a(0, 0), t.a(0, 1),         t.a(1, 0),
                              t.a(1, 1), t.shiftPixels.x(), t.shiftPixels.y()};
    for (int k = 0; k < 6; ++k) {
      std::string field = fixed(values[k], k < 4 ? 7 : 4);
      // At least one space before each number, right-aligned in IMOD's 12 columns.
      text +=
          std::string(field.size() < kXfFieldWidth ? kXfFieldWidth - field.size() : 1, ' ') + field;
    }
    text += "\n";
  }
  AtomicFileWriter out(path);
  out.write(text);
  out.commit();
}

void requireViewCount(const std::filesystem::path& listFile, std::size_t count,
                      const std::filesystem::path& stack, std::int64_t views) {
  if (static_cast<std::int64_t>(count) == views) return;
  throw FormatError(listFile, "has " + std::to_string(count) + " entries but the stack " +
                                  stack.string() + " has " + std::to_string(views) + " views");
}

}  // namespace tomowb::io
