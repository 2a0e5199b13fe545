#include "recon/qa/QaReport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#if TOMOWB_HAVE_PNG
#include <png.h>
#endif

#include "recon/core/Error.h"
#include "recon/io/AtomicDirectoryWriter.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/qa/LogAxis.h"

namespace tomowb::qa {

namespace fs = std::filesystem;

namespace {

std::string number(double v, int digits = 3) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[32];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

// Through AtomicFileWriter: a write or the flush at close that fails (a full disk) is an
// IoError, never an empty or short file reported as written.
void writeText(const fs::path& path, const std::string& text) {
  io::AtomicFileWriter out(path);
  out.write(text);
  out.commit();
}

// Writes 8-bit grey (channels 1) or RGB (channels 3) pixels.
fs::path writeImage(const fs::path& base, int width, int height, int channels,
                    const std::vector<unsigned char>& pixels) {
#if TOMOWB_HAVE_PNG
  fs::path path = base;
  path += ".png";
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&image, path.c_str(), 0, pixels.data(), 0, nullptr))
    throw IoError(path, std::string("cannot write the PNG: ") + image.message);
  return path;
#else
  fs::path path = base;
  path += channels == 1 ? ".pgm" : ".ppm";
  io::AtomicFileWriter out(path);
  out.write((channels == 1 ? "P5\n" : "P6\n") + std::to_string(width) + " " +
            std::to_string(height) + "\n255\n");
  out.write(pixels.data(), pixels.size());
  out.commit();
  return path;
#endif
}

std::int64_t sliceOf(const Volume& v, std::int64_t z) {
  return z < 0 ? v.nz() / 2 : std::min(z, v.nz() - 1);
}

// 0.1 / 99.9 percentiles of a slice (the window the views use by default).
std::pair<double, double> percentileWindow(const Volume& v, std::int64_t z) {
  std::vector<float> values(v.data() + v.index(0, 0, z),
                            v.data() + v.index(0, 0, z) + v.nx() * v.ny());
  values.erase(
      std::remove_if(values.begin(), values.end(), [](float x) { return !std::isfinite(x); }),
      values.end());
  if (values.empty()) return {0, 1};
  const auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    return static_cast<double>(values[k]);
  };
  double lo = at(0.001), hi = at(0.999);
  if (!(hi > lo)) hi = lo + 1e-12;
  return {lo, hi};
}

struct SvgChart {
  double width = 640, height = 320, left = 70, right = 20, top = 30, bottom = 45;
  double xMin = 0, xMax = 1, yMin = 0, yMax = 1;
  bool logX = false, logY = false;
  // Log axes: the range and ticks from LogAxis (labels in the data's units).
  LogAxis xLog, yLog;
  std::ostringstream body;

  void setLogX(const LogAxis& axis) {
    logX = true;
    xLog = axis;
    xMin = axis.lo, xMax = axis.hi;
  }
  void setLogY(const LogAxis& axis) {
    logY = true;
    yLog = axis;
    yMin = axis.lo, yMax = axis.hi;
  }

  double px(double x) const {
    const double a = logX ? std::log10(xMin) : xMin, b = logX ? std::log10(xMax) : xMax;
    const double t = ((logX ? std::log10(x) : x) - a) / (b - a);
    return left + t * (width - left - right);
  }
  double py(double y) const {
    const double a = logY ? std::log10(yMin) : yMin, b = logY ? std::log10(yMax) : yMax;
    const double t = ((logY ? std::log10(y) : y) - a) / (b - a);
    return height - bottom - t * (height - top - bottom);
  }
  std::string finish(const std::string& title, const std::string& xLabel,
                     const std::string& yLabel) {
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << width / 2 << "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\">"
        << title << "</text>\n"
        << "<line x1=\"" << left << "\" y1=\"" << height - bottom << "\" x2=\"" << width - right
        << "\" y2=\"" << height - bottom << "\" stroke=\"black\"/>\n"
        << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\""
        << height - bottom << "\" stroke=\"black\"/>\n";
    const auto linearTicks = [](double lo, double hi) {
      LogAxis a;  // five evenly spaced ticks, labelled as numbers
      for (int i = 0; i <= 4; ++i) {
        a.ticks.push_back(lo + i * (hi - lo) / 4);
        a.labels.push_back(number(a.ticks.back()));
      }
      return a;
    };
    const LogAxis xs = logX ? xLog : linearTicks(xMin, xMax);
    const LogAxis ys = logY ? yLog : linearTicks(yMin, yMax);
    for (std::size_t i = 0; i < xs.ticks.size(); ++i)
      svg << "<text x=\"" << px(xs.ticks[i]) << "\" y=\"" << height - bottom + 15
          << "\" text-anchor=\"middle\">" << xs.labels[i] << "</text>\n";
    for (std::size_t i = 0; i < ys.ticks.size(); ++i)
      svg << "<text x=\"" << left - 5 << "\" y=\"" << py(ys.ticks[i]) + 4
          << "\" text-anchor=\"end\">" << ys.labels[i] << "</text>\n";
    svg << "<text x=\"" << (left + width - right) / 2 << "\" y=\"" << height - 8
        << "\" text-anchor=\"middle\">" << xLabel << "</text>\n"
        << "<text x=\"14\" y=\"" << (top + height - bottom) / 2
        << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << (top + height - bottom) / 2
        << ")\">" << yLabel << "</text>\n"
        << body.str() << "</svg>\n";
    return svg.str();
  }
};

std::string escapeXml(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

std::string profileSvg(const Volume& a, const Volume& b, std::int64_t z, const std::string& labelA,
                       const std::string& labelB) {
  const std::int64_t y = a.ny() / 2;
  std::vector<double> va, vb, vd;
  for (std::int64_t x = 0; x < a.nx(); ++x) {
    va.push_back(a.at(x, y, z));
    vb.push_back(b.at(x, y, z));
    vd.push_back(static_cast<double>(a.at(x, y, z)) - b.at(x, y, z));
  }
  SvgChart chart;
  chart.xMax = static_cast<double>(std::max<std::int64_t>(a.nx() - 1, 1));
  double lo = 0, hi = 0;
  for (const auto* v : {&va, &vb, &vd})
    for (double x : *v)
      if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!(hi > lo)) hi = lo + 1;
  chart.yMin = lo;
  chart.yMax = hi;
  const auto polyline = [&](const std::vector<double>& v, const char* colour, const char* dash) {
    chart.body << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\"" << dash
               << " points=\"";
    for (std::size_t i = 0; i < v.size(); ++i)
      if (std::isfinite(v[i]))
        chart.body << chart.px(static_cast<double>(i)) << "," << chart.py(v[i]) << " ";
    chart.body << "\"/>\n";
  };
  polyline(va, "#1f77b4", "");
  polyline(vb, "#ff7f0e", " stroke-dasharray=\"5,3\"");
  polyline(vd, "#d62728", "");
  chart.body << "<text x=\"" << chart.width - 200
             << "\" y=\"40\" fill=\"#1f77b4\">A: " << escapeXml(labelA) << "</text>\n<text x=\""
             << chart.width - 200 << "\" y=\"55\" fill=\"#ff7f0e\">B: " << escapeXml(labelB)
             << "</text>\n<text x=\"" << chart.width - 200
             << "\" y=\"70\" fill=\"#d62728\">A - B</text>\n";
  return chart.finish(
      "Profile along x through row " + std::to_string(y) + ", slice " + std::to_string(z),
      "x (voxel)", "value");
}

std::string markdownToHtml(const std::string& title, const std::string& markdown) {
  // The report's Markdown is simple (headings, tables, images, paragraphs): a small converter
  // keeps the HTML report self-contained without a Markdown library.
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << escapeXml(title)
       << "</title><style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{"
          "border-collapse:collapse}td,th{border:1px solid #999;padding:3px 8px;text-align:right}"
          "img{max-width:100%}</style></head><body>\n";
  std::istringstream in(markdown);
  bool inTable = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("|", 0) == 0) {
      if (line.find("---") != std::string::npos) continue;
      if (!inTable) html << "<table>\n";
      inTable = true;
      html << "<tr>";
      std::string cell;
      std::istringstream cells(line.substr(1));
      while (std::getline(cells, cell, '|')) html << "<td>" << escapeXml(cell) << "</td>";
      html << "</tr>\n";
      continue;
    }
    if (inTable) html << "</table>\n";
    inTable = false;
    if (line.rfind("# ", 0) == 0)
      html << "<h1>" << escapeXml(line.substr(2)) << "</h1>\n";
    else if (line.rfind("## ", 0) == 0)
      html << "<h2>" << escapeXml(line.substr(3)) << "</h2>\n";
    else if (line.rfind("![", 0) == 0) {
      const auto open = line.find("](");
      html << "<p><img alt=\"" << escapeXml(line.substr(2, open - 2)) << "\" src=\""
           << line.substr(open + 2, line.size() - open - 3) << "\"></p>\n";
    } else if (!line.empty())
      html << "<p>" << escapeXml(line) << "</p>\n";
  }
  if (inTable) html << "</table>\n";
  html << "</body></html>\n";
  return html.str();
}

fs::path finishReport(io::AtomicDirectoryWriter& folder, const std::string& title,
                      const std::string& markdown, ReportFormat format) {
  const fs::path name = format == ReportFormat::Html ? "report.html" : "report.md";
  writeText(folder.temporaryFolder() / name,
            format == ReportFormat::Html ? markdownToHtml(title, markdown) : markdown);
  folder.commit();
  return folder.finalFolder() / name;
}

}  // namespace

void divergingColour(double t, unsigned char rgb[3]) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, -1.0, 1.0);
  // White at 0, to (59, 76, 192) blue at -1 and (180, 4, 38) red at +1.
  const double r = t < 0 ? 255 + t * (255 - 59) : 255 - t * (255 - 180);
  const double g = t < 0 ? 255 + t * (255 - 76) : 255 - t * (255 - 4);
  const double b = t < 0 ? 255 + t * (255 - 192) : 255 - t * (255 - 38);
  rgb[0] = static_cast<unsigned char>(std::lround(r));
  rgb[1] = static_cast<unsigned char>(std::lround(g));
  rgb[2] = static_cast<unsigned char>(std::lround(b));
}

fs::path writeSlicePicture(const fs::path& base, const Volume& v, std::int64_t z, double lo,
                           double hi) {
  std::vector<unsigned char> pixels(static_cast<std::size_t>(v.nx() * v.ny()));
  const double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
  // Image row 0 is the top: show y growing downwards, as the slice views do.
  for (std::int64_t y = 0; y < v.ny(); ++y)
    for (std::int64_t x = 0; x < v.nx(); ++x) {
      const double value = v.at(x, y, z);
      const double g = std::isfinite(value) ? std::clamp((value - lo) * scale, 0.0, 255.0) : 0.0;
      pixels[static_cast<std::size_t>(y * v.nx() + x)] = static_cast<unsigned char>(std::lround(g));
    }
  return writeImage(base, static_cast<int>(v.nx()), static_cast<int>(v.ny()), 1, pixels);
}

fs::path writeDifferencePicture(const fs::path& base, const Volume& a, const Volume& b,
                                std::int64_t z, double halfRange) {
  std::vector<unsigned char> pixels(static_cast<std::size_t>(a.nx() * a.ny() * 3));
  const double scale = halfRange > 0 ? 1.0 / halfRange : 0.0;
  for (std::int64_t y = 0; y < a.ny(); ++y)
    for (std::int64_t x = 0; x < a.nx(); ++x)
      divergingColour((static_cast<double>(a.at(x, y, z)) - b.at(x, y, z)) * scale,
                      &pixels[static_cast<std::size_t>(3 * (y * a.nx() + x))]);
  return writeImage(base, static_cast<int>(a.nx()), static_cast<int>(a.ny()), 3, pixels);
}

std::string histogramSvg(const DifferenceHistogram& h, const std::string& title) {
  SvgChart chart;
  chart.xMin = -h.halfRange;
  chart.xMax = h.halfRange;
  std::int64_t peak = 1;
  for (auto c : h.counts) peak = std::max(peak, c);
  chart.setLogY(logAxisFor({1.0, static_cast<double>(peak)}));
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] == 0) continue;
    const double x0 = chart.px(h.binCentre(i) - 0.5 * h.binWidth());
    const double x1 = chart.px(h.binCentre(i) + 0.5 * h.binWidth());
    const double y = chart.py(static_cast<double>(h.counts[i]));
    chart.body << "<rect x=\"" << x0 << "\" y=\"" << y << "\" width=\"" << std::max(x1 - x0, 0.5)
               << "\" height=\"" << chart.py(chart.yMin) - y << "\" fill=\"#4c72b0\"/>\n";
  }
  return chart.finish(escapeXml(title), "A - B", "voxels (log)");
}

std::string paretoSvg(const SweepResult& sweep) {
  SvgChart chart;
  chart.width = 720;
  chart.height = 420;
  // Kernel times and NRMSE on log axes. NRMSE 0 (a bit-identical row, the reference row) has no
  // place on a log axis: such points sit on the axis floor, hollow, labelled "NRMSE 0".
  std::vector<double> times, errors;
  for (const SweepRow& r : sweep.rows) {
    if (!r.ran || !r.comparison) continue;
    times.push_back(r.medianSeconds);
    errors.push_back(r.comparison->metrics.nrmse);
  }
  chart.setLogX(logAxisFor(times));
  chart.setLogY(logAxisFor(errors));
  std::vector<std::pair<double, double>> front;
  for (const SweepRow& r : sweep.rows) {
    if (!r.ran || !r.comparison) continue;
    const double nrmse = r.comparison->metrics.nrmse;
    const bool zero = !(nrmse > 0);
    const double x = chart.px(std::max(r.medianSeconds, chart.xMin)),
                 y = chart.py(zero ? chart.yMin : nrmse);
    const std::string verdict = rowVerdict(r);
    const std::string colour = verdict == "pass"   ? "#2ca02c"
                               : verdict == "FAIL" ? "#d62728"
                                                   : "#808080";
    chart.body << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"5\" fill=\""
               << (zero ? "white" : colour) << "\" stroke=\""
               << (r.onParetoFront ? "black" : colour) << "\" stroke-width=\"2\"/>\n<text x=\""
               << x + 7 << "\" y=\"" << y - 4 << "\" font-size=\"10\">"
               << escapeXml(r.label + (r.isReference ? " (reference)" : "") +
                            (zero ? " (NRMSE 0)" : ""))
               << "</text>\n";
    if (r.onParetoFront) front.push_back({x, y});
  }
  std::sort(front.begin(), front.end());
  if (front.size() > 1) {
    chart.body << "<polyline fill=\"none\" stroke=\"black\" stroke-dasharray=\"4,3\" points=\"";
    for (auto [x, y] : front) chart.body << x << "," << y << " ";
    chart.body << "\"/>\n";
  }
  return chart.finish(
      escapeXml(sweep.algorithm +
                " variants: accuracy against speed (green pass, red fail, grey reference, "
                "ringed: Pareto front)"),
      "median kernel time (s, log scale)",
      "NRMSE vs " + escapeXml(sweep.reference) + " (log scale)");
}

fs::path writeCompareReport(const fs::path& folderPath, const CompareReportInput& in,
                            ReportFormat format, bool replace) {
  if (!in.a || !in.b) throw ParameterError("report", "two volumes are needed");
  io::AtomicDirectoryWriter folder(folderPath, replace);
  const fs::path dir = folder.temporaryFolder();
  const std::int64_t z = sliceOf(*in.a, in.slice);
  const auto [lo, hi] = percentileWindow(*in.b, z);
  const fs::path pa = writeSlicePicture(dir / "a", *in.a, z, lo, hi);
  const fs::path pb = writeSlicePicture(dir / "b", *in.b, z, lo, hi);
  double half = 0;
  for (std::int64_t i = in.a->index(0, 0, z); i < in.a->index(0, 0, z) + in.a->nx() * in.a->ny();
       ++i) {
    const double d = static_cast<double>(in.a->data()[i]) - in.b->data()[i];
    if (std::isfinite(d)) half = std::max(half, std::abs(d));
  }
  const fs::path pd =
      writeDifferencePicture(dir / "difference", *in.a, *in.b, z, half > 0 ? half : 1);
  writeText(dir / "profile.svg", profileSvg(*in.a, *in.b, z, in.labelA, in.labelB));
  writeText(dir / "histogram.svg",
            histogramSvg(in.comparison.histogram, "Difference histogram A - B"));

  const RunComparison& c = in.comparison;
  std::ostringstream md;
  md << "# Compare: " << in.labelA << " against " << in.labelB << "\n\n";
  md << "A: " << in.labelA << (in.pathA.empty() ? "" : " (" + in.pathA + ")") << "\n\n";
  md << "B: " << in.labelB << (in.pathB.empty() ? "" : " (" + in.pathB + ")") << "\n\n";
  md << "Tomo Workbench " TOMOWB_VERSION ", " << c.metrics.voxelCount << " voxels compared.\n\n";
  if (c.passed || !c.informative.empty()) md << "**Verdict: " << c.verdict << "**\n\n";
  md << "| metric | value |\n|---|---|\n";
  md << "| max-abs | " << number(c.metrics.maxAbsDifference) << " |\n";
  md << "| max-abs / range of B | " << number(c.maxAbsRelative) << " |\n";
  md << "| NRMSE | " << number(c.metrics.nrmse) << " |\n";
  md << "| RMSE | " << number(c.metrics.rmse) << " |\n";
  md << "| PSNR (dB) | " << number(c.metrics.psnrDb, 4) << " |\n";
  md << "| SSIM | " << (c.metrics.ssim ? number(*c.metrics.ssim, 6) : "not computed") << " |\n";
  md << "| mean bias (A - B) | " << number(c.metrics.meanDifference) << " |\n";
  md << "| non-finite differences | " << c.metrics.nonFiniteCount << " |\n";
  for (const auto& r : c.cnr)
    md << "| CNR " << r.name << " (A / B) | " << number(r.cnrTest, 4) << " / "
       << number(r.cnrReference, 4) << " |\n";
  if (c.tolerance)
    md << "| tolerance (" << toString(*c.accuracyClass)
       << ") | NRMSE <= " << number(c.tolerance->maxNrmse)
       << ", max-abs/range <= " << number(c.tolerance->maxAbsRelative) << " |\n";
  md << "\n## Slice " << z << "\n\n";
  md << "A and B share the window " << number(lo) << " .. " << number(hi)
     << " (0.1-99.9 percentiles of B); A - B uses +-" << number(half)
     << " (blue negative, red positive).\n\n";
  md << "![A](" << pa.filename().string() << ")\n\n![B](" << pb.filename().string()
     << ")\n\n![A - B](" << pd.filename().string() << ")\n\n";
  md << "## Profile and histogram\n\n![profile](profile.svg)\n\n![histogram](histogram.svg)\n";
#if !TOMOWB_HAVE_PNG
  md << "\nThis build has no libpng: the slices are PGM/PPM files.\n";
#endif
  return finishReport(folder, "Compare " + in.labelA + " / " + in.labelB, md.str(), format);
}

fs::path writeSweepReport(const fs::path& folderPath, const SweepResult& sweep, ReportFormat format,
                          bool replace) {
  io::AtomicDirectoryWriter folder(folderPath, replace);
  const fs::path dir = folder.temporaryFolder();
  writeText(dir / "pareto.svg", paretoSvg(sweep));
  std::ostringstream md;
  md << "# " << sweep.algorithm << " variant sweep\n\n";
  if (!sweep.input.empty()) md << "Input: " << sweep.input << "\n\n";
  md << "Reference: " << sweep.reference << " (kernel time " << number(sweep.referenceSeconds)
     << " s). Tomo Workbench " << TOMOWB_VERSION << ".\n\n";
  md << "Kernel time: FDK the backprojection, SIRT forward + back projection per iteration; wall "
        "time: the whole run (filtering, transfers, ...). Both are medians of the timed runs.\n\n";
  md << "| variant | class | device | kernel time, median (s) | wall time, median (s) | GUPS | "
        "reference | NRMSE | max-abs/range | verdict | determinism | adjoint |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const SweepRow& r : sweep.rows) {
    md << "| " << r.label << (r.onParetoFront ? " (Pareto)" : "") << " | "
       << toString(r.accuracyClass) << " | ";
    if (!r.ran) {
      md << rowVerdict(r) << " | | | | | | | | | |\n";
      continue;
    }
    md << r.device << " | " << number(r.medianSeconds, 4) << " | "
       << number(r.medianTotalSeconds, 4) << " | " << number(r.gups, 4) << " | " << r.reference
       << " | " << number(r.comparison->metrics.nrmse) << " | "
       << number(r.comparison->maxAbsRelative) << " | " << rowVerdict(r) << " | "
       << r.determinism.summary() << " | " << (r.adjoint ? number(r.adjoint->relativeError, 2) : "")
       << " |\n";
  }
  md << "\n![accuracy against speed](pareto.svg)\n\n## Central slices\n\n";
  const Volume& ref = sweep.referenceVolume;
  if (!ref.empty()) {
    const std::int64_t z = ref.nz() / 2;
    const Volume refSlice = centralSlice(ref);
    const auto [lo, hi] = percentileWindow(refSlice, 0);
    const fs::path p = writeSlicePicture(dir / "reference", refSlice, 0, lo, hi);
    md << "Reference, slice " << z << ":\n\n![reference](" << p.filename().string() << ")\n\n";
    int index = 0;
    for (const SweepRow& r : sweep.rows) {
      if (!r.ran || r.centralSlice.empty()) continue;
      double half = 0;
      for (std::int64_t i = 0; i < refSlice.voxelCount(); ++i) {
        const double d = static_cast<double>(r.centralSlice.data()[i]) - refSlice.data()[i];
        if (std::isfinite(d)) half = std::max(half, std::abs(d));
      }
      const fs::path pd = writeDifferencePicture(dir / ("difference-" + std::to_string(index++)),
                                                 r.centralSlice, refSlice, 0, half > 0 ? half : 1);
      md << "![" << r.label << " - reference, +-" << number(half) << "](" << pd.filename().string()
         << ")\n\n";
      md << r.label << " minus the reference, window +-" << number(half) << "\n\n";
    }
  }
  return finishReport(folder, sweep.algorithm + " sweep", md.str(), format);
}

}  // namespace tomowb::qa
