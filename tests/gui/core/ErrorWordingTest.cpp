// ErrorWording: the reader messages of the first-day review (ux-review-2026-11.md, section 5)
// get a first sentence in lab-staff words and keep their exact detail.
#include <gtest/gtest.h>

#include "gui/core/ErrorWording.h"

namespace tomowb::gui {
namespace {

TEST(ErrorWording, ADamagedMrcHeaderSaysSoFirstAndKeepsTheField) {
  const ErrorWording w =
      wordLoadError("random.mrc: field 'nx': must be >= 1, got -1421147407", "random.mrc");
  EXPECT_EQ(w.plain, "This file is not a valid MRC file: its header is damaged.");
  EXPECT_EQ(w.text(),
            "This file is not a valid MRC file: its header is damaged.\n\nDetails: random.mrc: "
            "field 'nx': must be >= 1, got -1421147407");
}

TEST(ErrorWording, TruncatedDataSaysItMayBeIncomplete) {
  const char* const messages[] = {
      "big.mrc: field 'data': truncated: needs 4000000000000000 bytes at offset 1024, the file "
      "has 5120 bytes",
      "trunc.json: field 'size': the file has 50000000 bytes but trunc.json declares 110592000 "
      "bytes of float32",
      "cut.npy: needs 8388608 bytes at offset 128, the file has 1000000 bytes",
  };
  for (const char* m : messages) {
    const ErrorWording w = wordLoadError(m, "x.mrc");
    EXPECT_EQ(w.plain, "The data file is shorter than its header says; it may be incomplete.") << m;
    EXPECT_EQ(w.detail, m);
  }
}

TEST(ErrorWording, NamesTheFormatFromTheFileName) {
  EXPECT_EQ(wordLoadError("a.mhd: field 'NDims': must be 3, got 7", "a.mhd").plain,
            "This file is not a valid MetaImage file: its header is damaged.");
  EXPECT_EQ(wordLoadError("field 'dtype': '<c8' is not supported as data", "a.npy").plain,
            "This file is not a valid NumPy file: its header is damaged.");
  EXPECT_EQ(wordLoadError("field 'x': bad", "").plain,
            "This file's header is damaged or not in the format its name suggests.");
}

TEST(ErrorWording, JsonMissingFilesAndMemoryHaveTheirOwnSentences) {
  EXPECT_NE(wordLoadError("scan.json: not valid JSON: [json.exception.parse_error.101] parse error",
                          "scan.json")
                .plain.find("not valid JSON"),
            std::string::npos);
  EXPECT_EQ(
      wordLoadError("cannot open /data/gone.raw: No such file or directory", "gone.raw").plain,
      "The file cannot be read: it is missing, moved, or you do not have permission to read "
      "it.");
  EXPECT_EQ(wordLoadError("huge.mrc: not enough memory to load it", "huge.mrc").plain,
            "There is not enough free memory to open this file.");
  EXPECT_EQ(wordLoadError("something odd", "").plain, "The file could not be opened.");
  EXPECT_EQ(wordLoadError("", "").text(), "The file could not be opened.");
}

}  // namespace
}  // namespace tomowb::gui
