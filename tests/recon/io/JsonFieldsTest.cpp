#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "recon/core/Error.h"
#include "recon/io/JsonFields.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

using nlohmann::json;

TEST(JsonFields, RefusesNestingDeeperThan64LevelsBeforeParsing) {
  const std::string deep(100000, '[');
  TOMOWB_EXPECT_FORMAT_ERROR(parseJsonText(deep, "deep.json"), "deep.json", "nested deeper");
  const std::string ok = std::string(10, '[') + std::string(10, ']');
  EXPECT_NO_THROW(parseJsonText(ok, "ok.json"));
}

TEST(JsonFields, BracketsInsideStringsDoNotCountAsNesting) {
  const std::string text = "{\"a\": \"" + std::string(1000, '[') + "\"}";
  EXPECT_NO_THROW(parseJsonText(text, "s.json"));
}

TEST(JsonFields, MalformedJsonIsAFormatErrorNamingTheFile) {
  TOMOWB_EXPECT_FORMAT_ERROR(parseJsonText("{\"a\": ", "bad.json"), "bad.json", "not valid JSON");
}

TEST(JsonFields, AxisLengthsMustBeIntegersFrom1To2To20) {
  const json j = json::parse(
      R"({"zero": [0], "neg": [-3], "huge": [2147483648], "big": [1048577], "real": [3.0],
          "ok": [1048576], "u64": [18446744073709551615]})");
  const JsonFields f(j, "v.json");
  TOMOWB_EXPECT_FORMAT_ERROR(f.axisLengths("zero", 1), "v.json", "zero[0]");
  TOMOWB_EXPECT_FORMAT_ERROR(f.axisLengths("neg", 1), "v.json", "must be >= 1");
  TOMOWB_EXPECT_FORMAT_ERROR(f.axisLengths("huge", 1), "v.json", "2^20");
  TOMOWB_EXPECT_FORMAT_ERROR(f.axisLengths("big", 1), "v.json", "2^20");
  TOMOWB_EXPECT_FORMAT_ERROR(f.axisLengths("real", 1), "v.json", "integer");
  TOMOWB_EXPECT_FORMAT_ERROR(f.axisLengths("u64", 1), "v.json", "2^20");
  EXPECT_EQ(f.axisLengths("ok", 1)[0], 1048576);
}

TEST(JsonFields, VectorsMustBeFiniteAndSizesPositive) {
  const json j = json::parse(R"({"a": [1, 2], "b": [1, 0, 2], "c": [1, "x", 2], "d": [1, 2, 3]})");
  const JsonFields f(j, "v.json");
  TOMOWB_EXPECT_FORMAT_ERROR(f.finiteVector3("a"), "v.json", "3 numbers");
  TOMOWB_EXPECT_FORMAT_ERROR(f.positiveVector3("b"), "v.json", "b[1]");
  TOMOWB_EXPECT_FORMAT_ERROR(f.finiteVector3("c"), "v.json", "c[1]");
  TOMOWB_EXPECT_FORMAT_ERROR(f.finiteVector3("missing"), "v.json", "is missing");
  EXPECT_EQ(f.positiveVector3("d"), Eigen::Vector3d(1, 2, 3));
}

// D25 of the hostile-input review: the last of two equal keys won silently, while MetaImage and
// NPY headers refuse a key given twice.
TEST(JsonFields, RefusesAKeyGivenTwiceNamingIt) {
  TOMOWB_EXPECT_FORMAT_ERROR(parseJsonText(R"({"dtype": "uint8", "dtype": "float32"})", "d.json"),
                             "d.json", "field 'dtype': is given twice");
  TOMOWB_EXPECT_FORMAT_ERROR(
      parseJsonText(R"({"geometry": {"detector": {"cols": 4, "rows": 4, "cols": 8}}})", "g.json"),
      "g.json", "geometry.detector.cols");
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(
      parseJsonText(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "ok.json"));
}

TEST(JsonFields, InvalidJsonMessagesStayShort) {
  const std::string huge = "{\"a\": 1" + std::string(900000, '0') + "e999999}";
  const std::string message = test::formatErrorOf([&] { parseJsonText(huge, "n.json"); });
  EXPECT_NE(message.find("n.json"), std::string::npos);
  EXPECT_LT(message.size(), 1000u);
}

}  // namespace
}  // namespace tomowb::io
