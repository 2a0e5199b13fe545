#include "RegionSpec.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "recon/core/Error.h"
#include "recon/io/ReaderLimits.h"
#include "recon/io/VolumeFiles.h"

namespace tomowb::cli {

namespace {
std::vector<double> numbersIn(const std::string& spec, const std::string& text, char separator,
                              std::size_t count) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, separator)) {
    double value = 0;
    auto [end, err] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (err != std::errc() || end != item.data() + item.size() || !std::isfinite(value))
      throw ParameterError("--region", "'" + spec + "': '" + item + "' is not a finite number");
    out.push_back(value);
  }
  if (out.size() != count)
    throw ParameterError("--region",
                         "'" + spec + "': expected " + std::to_string(count) + " numbers");
  return out;
}
}  // namespace

metrics::Region parseRegion(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "whole") return metrics::Region::whole();
  if (kind == "cylinder") return metrics::Region::centralCylinder(numbersIn(spec, rest, ',', 1)[0]);
  if (kind == "cylinder-mm")
    return metrics::Region::centralCylinderMm(numbersIn(spec, rest, ',', 1)[0]);
  if (kind == "slab") {
    const auto z = numbersIn(spec, rest, ':', 2);
    // Whole slice numbers within the axis limit: 99999999999999999999 does not fit an int64, and
    // converting it was undefined (it printed as slice -9223372036854775808).
    for (double v : z)
      if (!(std::abs(v) <= static_cast<double>(io::kMaxAxisLength)) || v != std::floor(v))
        throw ParameterError("--region",
                             "'" + spec + "': slab slices must be whole numbers from 0 to " +
                                 std::to_string(io::kMaxAxisLength) + ", got '" + rest + "'");
    return metrics::Region::slab(std::int64_t(z[0]), std::int64_t(z[1]));
  }
  if (kind == "sphere") {
    const auto s = numbersIn(spec, rest, ',', 4);
    return metrics::Region::sphere({s[0], s[1], s[2]}, s[3]);
  }
  if (kind == "mask") return metrics::Region::mask(io::readVolume(rest), rest);
  throw ParameterError("--region",
                       "'" + spec + "': unknown kind '" + kind + "'; use " + kRegionHelp);
}

metrics::Region parseRegions(const std::vector<std::string>& specs) {
  if (specs.empty()) return metrics::Region::whole();
  metrics::Region region = parseRegion(specs.front());
  for (std::size_t i = 1; i < specs.size(); ++i) region = region & parseRegion(specs[i]);
  return region;
}

}  // namespace tomowb::cli
