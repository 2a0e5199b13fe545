#include "recon/qa/RunComparability.h"

#include <algorithm>
#include <set>
#include <vector>

namespace tomowb::qa {

namespace {

// Parameters that may differ between runs a class compares: the kernel (what a class is about),
// how and where it ran, and the records' bookkeeping.
const std::set<std::string>& ignoredParameters() {
  static const std::set<std::string> keys = {"variant",
                                             "forwardVariant",
                                             "backVariant",
                                             "gpu",
                                             "tunables",
                                             "cpuThreads",
                                             "publishEvery",
                                             "run",
                                             "title",
                                             "rois",
                                             "stopReason",
                                             "openedRecord",
                                             "goldenReferenceFor",
                                             "input"};
  return keys;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string shortText(const nlohmann::json& v) {
  if (v.is_null()) return "none";
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// "filter.cutoff 1 vs 0.5" for each leaf that differs (at most `limit` of them).
void differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& path,
                 std::vector<std::string>& out, bool top) {
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const std::string& k : keys) {
      if (top && ignoredParameters().count(k)) continue;
      const std::string sub = path.empty() ? k : path + "." + k;
      const nlohmann::json va = a.contains(k) ? a[k] : nlohmann::json();
      const nlohmann::json vb = b.contains(k) ? b[k] : nlohmann::json();
      differences(va, vb, sub, out, false);
    }
    return;
  }
  if (a != b) out.push_back(path + " " + shortText(a) + " vs " + shortText(b));
}

std::string joined(const std::vector<std::string>& items, std::size_t limit = 3) {
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > limit) s += " and " + std::to_string(items.size() - limit) + " more";
  return s;
}

// SHA-256 of the projections the run read, sorted; empty when the record has none.
std::vector<std::string> inputHashes(const RunRecord& r) {
  std::vector<std::string> hashes;
  for (const RecordedFile& f : r.inputs)
    if (f.role.rfind("projections", 0) == 0 && !f.sha256.empty()) hashes.push_back(f.sha256);
  std::sort(hashes.begin(), hashes.end());
  return hashes;
}

const nlohmann::json& recordedInput(const RunRecord& r) {
  static const nlohmann::json none = nlohmann::json::object();
  const auto it = r.parameters.find("input");
  return it != r.parameters.end() && it->is_object() ? *it : none;
}

std::string geometryHash(const RunRecord& r) {
  if (!r.geometrySha256.empty()) return r.geometrySha256;
  const nlohmann::json& input = recordedInput(r);
  return input.contains("geometrySha256") && input["geometrySha256"].is_string()
             ? input["geometrySha256"].get<std::string>()
             : std::string();
}

ComparabilityCheck different(std::string why) {
  return {Comparability::NotComparable, std::move(why)};
}

}  // namespace

ComparabilityCheck cannotTell(std::string why) {
  return {Comparability::Unknown, std::move(why)};
}

ComparabilityCheck checkComparability(const RunRecord& a, const RunRecord& b) {
  if (a.algorithm.empty()) return cannotTell("the record of A names no algorithm");
  if (b.algorithm.empty()) return cannotTell("the record of B names no algorithm");
  if (upper(a.algorithm) != upper(b.algorithm))
    return different("different algorithms: " + a.algorithm + " and " + b.algorithm);

  std::vector<std::string> diff;
  differences(a.parameters, b.parameters, "", diff, true);
  if (!diff.empty()) return different("different parameters: " + joined(diff));

  // The input: what the records say about the projections (GUI runs: "input"; CLI: files).
  std::vector<std::string> inputDiff;
  const nlohmann::json& ia = recordedInput(a);
  const nlohmann::json& ib = recordedInput(b);
  for (const char* key : {"views", "rows", "cols", "path", "name"})
    if (ia.contains(key) && ib.contains(key) && ia[key] != ib[key])
      inputDiff.push_back(std::string(key) + " " + shortText(ia[key]) + " vs " +
                          shortText(ib[key]));
  if (!inputDiff.empty()) return different("different input: " + joined(inputDiff));
  const std::vector<std::string> ha = inputHashes(a), hb = inputHashes(b);
  if (!ha.empty() && !hb.empty() && ha != hb)
    return different("different input data (the projections' SHA-256 differ)");

  const std::string ga = geometryHash(a), gb = geometryHash(b);
  if (!ga.empty() && !gb.empty()) {
    if (ga != gb) return different("different geometry (SHA-256 differ)");
  } else if (!a.geometry.is_null() && !b.geometry.is_null()) {
    if (a.geometry != b.geometry) return different("different geometry");
  } else {
    return cannotTell(std::string("the record of ") +
                      (ga.empty() && a.geometry.is_null() ? "A" : "B") + " holds no geometry");
  }

  // Same geometry and parameters; the data itself must be known to be the same too.
  const bool synthetic = a.parameters.contains("phantom") && b.parameters.contains("phantom");
  const bool sameFiles = !ha.empty() && ha == hb;
  const bool samePath = ia.contains("path") && ib.contains("path") && ia["path"] == ib["path"] &&
                        ia["path"].is_string() && !ia["path"].get<std::string>().empty();
  const bool sameName = ia.contains("name") && ib.contains("name") && ia["name"] == ib["name"];
  if (!synthetic && !sameFiles && !samePath && !sameName)
    return cannotTell("the records do not identify the input data (no input hashes)");
  return {Comparability::Comparable, {}};
}

std::string informativeReason(const ComparabilityCheck& check) {
  switch (check.kind) {
    case Comparability::Comparable:
      return {};
    case Comparability::NotComparable:
      return check.reason;
    case Comparability::Unknown:
      return "cannot tell whether the runs are comparable: " + check.reason;
  }
  return {};
}

}  // namespace tomowb::qa
