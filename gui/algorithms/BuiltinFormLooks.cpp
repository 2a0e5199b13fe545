// The looks of the built-in algorithms' forms (FormLook.h): the labels, item texts and start
// values the algorithm dock has shown since before the catalogue, so that the generated forms look
// as the hand-made ones did (scripts/screenshots.sh compares). The parameters themselves, their
// ranges and defaults are the descriptors' (recon/catalog/FdkAlgorithms.cpp,
// IterativeAlgorithms.cpp).
#include <QCoreApplication>
#include <map>
#include <string>

#include "gui/algorithms/AlgorithmForms.h"

namespace tomowb::gui {

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("AlgorithmPanel", text);
}

// FDK and WBP: the filter and the weights.
FormLook filteredBackprojectionLook() {
  FormLook look;
  look.title = tr("Filter and weights");
  look.objectName = QStringLiteral("filterBox");
  FieldLook window;
  window.label = tr("&Window:");
  window.choiceLabels = {tr("Ram-Lak"), tr("Shepp-Logan"), tr("Cosine"), tr("Hamming"), tr("Hann")};
  window.objectName = QStringLiteral("rampWindow");
  FieldLook cutoff;
  cutoff.label = tr("C&ut-off:");
  cutoff.objectName = QStringLiteral("cutoff");
  cutoff.minimum = 0.01;
  cutoff.step = 0.05;
  cutoff.decimals = 2;
  cutoff.tip = tr("Frequencies above this fraction of Nyquist are cut");
  FieldLook redundancy;
  redundancy.label = tr("&Redundancy:");
  redundancy.choiceLabels = {tr("Auto (from the geometry)"), tr("Full scan"),
                             tr("Parker (short scan)"), tr("Offset detector (half fan)"),
                             tr("None")};
  FieldLook fovMask;
  fovMask.label = tr("Zero voxels outside the &field of view");
  FieldLook allowIncomplete;
  allowIncomplete.label = tr("Allow an &incomplete short scan");
  allowIncomplete.tip =
      tr("Reconstruct a short scan that covers less than 180 degrees plus the fan angle, with a "
         "warning; without this the run is refused and says what the scan covers and needs");
  look.fields = {{"filter/window", window},
                 {"filter/cutoff", cutoff},
                 {"redundancy", redundancy},
                 {"fieldOfViewMask", fovMask},
                 {"allowIncomplete", allowIncomplete}};
  return look;
}

// SIRT, OS-SIRT, SART and CGLS: the iterations box. Non-negativity is on in the window (densities)
// though the descriptors leave the bounds unset, as the CLI does.
FormLook iterativeLook() {
  FormLook look;
  look.title = tr("Iterations");
  look.objectName = QStringLiteral("iterationBox");
  look.memoryWhat = tr("weights, residual, iterate, update, column weights and two previews");
  FieldLook iterations;
  iterations.label = tr("&Iterations:");
  iterations.minimum = 0;  // one below the valid range: validate explains
  iterations.tip = tr("The most iterations: one iteration is one sweep over all views");
  FieldLook relaxation;
  relaxation.label = tr("Re&laxation \u03bb:");
  relaxation.decimals = 2;
  relaxation.step = 0.05;
  relaxation.tip =
      tr("Relaxation \u03bb, 0 < \u03bb < 2: the share of each correction applied (SIRT and "
         "OS-SIRT 1, SART 0.5 by default)");
  FieldLook subsets;
  subsets.label = tr("Su&bsets:");
  subsets.maximum = 100000;
  subsets.tip = tr("OS-SIRT: interleaved subsets of the views (k, k + n, k + 2n, ...)");
  FieldLook lower;
  lower.label = tr("&Non-negative (lower bound 0)");
  lower.objectName = QStringLiteral("nonNegative");
  lower.aliasOnly = true;
  lower.initial = 0.0;
  lower.tip = tr("Clamp every voxel to >= 0 after each update (densities)");
  FieldLook upper;
  upper.label = tr("&Upper bound:");
  upper.decimals = 4;
  upper.step = 1;
  upper.offShows = 1.0;
  FieldLook stop;
  stop.label = tr("&Stop when the residual falls by <");
  stop.objectName = QStringLiteral("stopPercent");
  stop.checkName = QStringLiteral("stopOn");
  stop.zeroIsOff = true;
  stop.scale = 100;
  stop.minimum = 0;
  stop.maximum = 100;
  stop.decimals = 3;
  stop.step = 0.05;
  stop.suffix = tr(" %");
  stop.offShows = 0.1;
  stop.tip =
      tr("Stop early once the weighted residual falls by less than this share in one iteration");
  look.fields = {{"iterations", iterations}, {"relaxation", relaxation},
                 {"subsets", subsets},       {"lowerBound", lower},
                 {"upperBound", upper},      {"stopRelativeChange", stop}};
  return look;
}

// PWLS-OS-SQS: the cost 1/2 ||y - Ax||_W^2 + beta R(x) (recon/iterative/PwlsSqs.h). beta and
// delta span decades, so they take scientific entry; the change-based stop reads in per cent as
// SIRT's residual stop does.
FormLook pwlsLook() {
  FormLook look;
  look.title = tr("PWLS: penalised weighted least squares");
  look.objectName = QStringLiteral("pwlsBox");
  // The separable-footprint pair the algorithm is made for (issue #19); Joseph where SF refuses.
  look.projectorModel = QStringLiteral("sf-tt");
  look.memoryWhat =
      tr("the volume, the SQS denominator, the penalty's gradient and curvature, the update, "
         "the residual (and the FDK start)");
  FieldLook iterations;
  iterations.label = tr("&Iterations:");
  iterations.minimum = 0;  // one below the valid range: validate explains
  iterations.tip = tr("The most iterations: one iteration is one sweep over all views");
  FieldLook subsets;
  subsets.label = tr("Su&bsets:");
  subsets.maximum = 100000;
  subsets.tip =
      tr("Ordered subsets of interleaved views: one SQS update per subset. More subsets lower "
         "the cost faster at first; 1 subset makes the cost fall monotonically");
  FieldLook beta;
  beta.label = tr("Penalty &\u03b2:");
  beta.significantDigits = 6;
  beta.step = 1e-3;
  beta.tip =
      tr("\u03b2: the penalty's strength in the cost \u00bd\u2016y \u2212 Ax\u2016\u00b2_W + "
         "\u03b2 R(x). Larger: smoother, less noise; 0: no penalty (weighted least squares). "
         "It scales with the weights: with photon counts as weights (thousands per ray) it "
         "takes values in the thousands. Type 1e3 or 1000");
  FieldLook delta;
  delta.label = tr("Edge &\u03b4:");
  delta.significantDigits = 6;
  delta.step = 1e-5;
  delta.suffix = tr(" /mm");
  delta.tip =
      tr("\u03b4 of the hyperbola penalty \u03b4\u00b2(\u221a(1 + (t/\u03b4)\u00b2) \u2212 1) "
         "over 26 neighbours, in the volume's units (attenuation per mm; water is about 0.02): "
         "neighbour differences above \u03b4 count as edges and are smoothed less. Type 1e-3 "
         "or 0.001");
  FieldLook momentum;
  momentum.label = tr("Nesterov &momentum");
  momentum.tip =
      tr("Nesterov momentum per subset: converges faster; with several subsets the cost may "
         "rise again late in the run");
  FieldLook lower;
  lower.label = tr("&Non-negative (lower bound 0)");
  lower.objectName = QStringLiteral("nonNegative");
  lower.aliasOnly = true;
  lower.initial = 0.0;
  lower.tip = tr("Clamp every voxel to >= 0 after each update (attenuation is never negative)");
  FieldLook upper;
  upper.label = tr("&Upper bound:");
  upper.decimals = 4;
  upper.step = 0.01;
  upper.offShows = 0.1;
  upper.tip = tr("Clamp every voxel to at most this value (1/mm) after each update");
  FieldLook init;
  init.label = tr("Start &from:");
  init.choiceLabels = {tr("Zero"), tr("FDK on the same grid")};
  init.objectName = QStringLiteral("pwlsStart");
  init.tip =
      tr("The first iterate: FDK on the run's grid (helical FDK on a helix) saves many "
         "iterations; zero shows the whole descent");
  FieldLook stop;
  stop.label = tr("&Stop when x changes by <");
  stop.objectName = QStringLiteral("stopChangePercent");
  stop.checkName = QStringLiteral("stopChangeOn");
  stop.zeroIsOff = true;
  stop.scale = 100;
  stop.minimum = 0;
  stop.maximum = 99.9;
  stop.decimals = 3;
  stop.step = 0.05;
  stop.suffix = tr(" %");
  stop.offShows = 0.1;
  stop.tip =
      tr("Stop early once RMS(x_k \u2212 x_k\u22121) / RMS(x_k) falls below this share in one "
         "iteration; unticked: run every iteration");
  look.fields = {{"iterations", iterations}, {"subsets", subsets},   {"beta", beta},
                 {"delta", delta},           {"momentum", momentum}, {"lowerBound", lower},
                 {"upperBound", upper},      {"init", init},         {"stopChange", stop}};
  return look;
}

struct ListEntry {
  const char* label;
  const char* tip;
};

const std::map<std::string, ListEntry, std::less<>>& listEntries() {
  static const std::map<std::string, ListEntry, std::less<>> entries = {
      {"fdk",
       {"FDK (cone beam) / FBP (parallel)",
        "Filtered backprojection: FDK for cone beams, FBP for parallel beams"}},
      {"wbp",
       {"WBP: weighted backprojection (tilt series)",
        "Filtered (weighted) backprojection of a tilt series on the tomogram grid: fast, one "
        "pass"}},
      {"sirt",
       {"SIRT",
        "Simultaneous iterative reconstruction: every view in each update (reference/sirt-et.md)"}},
      {"os-sirt",
       {"OS-SIRT (ordered subsets)",
        "SIRT over interleaved subsets of the views: one update per subset, faster at first"}},
      {"sart",
       {"SART (one view at a time)", "Simultaneous algebraic reconstruction: one update per view"}},
      {"cgls",
       {"CGLS (conjugate gradients, least squares)",
        "Conjugate gradients on the normal equations: the unconstrained least-squares solution in "
        "few iterations; choose a matched projector pair, and stop early on noisy data"}},
      {"pwls",
       {"PWLS (penalised weighted least squares)",
        "PWLS-OS-SQS: statistical weights from photon counts, an edge-preserving penalty, "
        "ordered subsets; starts from FDK. Best with a separable-footprint pair (SF-TT)"}},
  };
  return entries;
}

}  // namespace

const FormLook* builtinFormLook(std::string_view id) {
  static const std::map<std::string, FormLook, std::less<>> looks = [] {
    std::map<std::string, FormLook, std::less<>> m;
    for (const char* fbp : {"fdk", "wbp"}) m[fbp] = filteredBackprojectionLook();
    for (const char* it : {"sirt", "os-sirt", "sart", "cgls"}) m[it] = iterativeLook();
    m["pwls"] = pwlsLook();
    m["cgls"].memoryWhat =
        tr("residual, its update, iterate, gradient, direction and two previews");
    for (auto& [id, look] : m) {
      const ListEntry& entry = listEntries().at(id);
      look.listLabel = tr(entry.label);
      look.listTip = tr(entry.tip);
    }
    return m;
  }();
  const auto it = looks.find(id);
  return it != looks.end() ? &it->second : nullptr;
}

ParameterForm* makeAlgorithmForm(const catalog::AlgorithmDescriptor& descriptor, QWidget* parent) {
  const FormLook* look = builtinFormLook(descriptor.id);
  return new ParameterForm(descriptor, look != nullptr ? *look : FormLook{}, parent);
}

QString algorithmListLabel(const catalog::AlgorithmDescriptor& descriptor) {
  const FormLook* look = builtinFormLook(descriptor.id);
  return look != nullptr ? look->listLabel : QString::fromStdString(descriptor.label);
}

QString algorithmListTip(const catalog::AlgorithmDescriptor& descriptor) {
  const FormLook* look = builtinFormLook(descriptor.id);
  return look != nullptr ? look->listTip : QString::fromStdString(descriptor.summary);
}

}  // namespace tomowb::gui
