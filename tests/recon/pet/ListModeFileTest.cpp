// ListModeFile: write/read round trip (whole and streamed), the header's fields, and hostile
// files: truncated, wrong magic, absurd event count, bad records, bad header; the writer's
// atomicity.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "recon/core/Error.h"
#include "recon/pet/ListModeFile.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

template <typename E, typename F>
std::string messageOf(F call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), std::streamsize(bytes.size()));
}

ListModeHeader sampleHeader() {
  ListModeHeader h;
  h.scanner = scannerPreset("penn-labr3");
  h.tofLsbPs = h.scanner.tofLsbPs;
  h.acquisitionSeconds = 600;
  h.isotope = "F-18";
  h.halfLifeS = 6586.2;
  h.scanStart = "2026-11-26T09:30:00";
  h.source = "unit test \xC3\xA9";  // UTF-8
  h.simulation = ListModeSimulationTruth{12345678901234567890ull, 1000000, 0.2079, 5.3e6, 900, 100};
  return h;
}

std::vector<ListModeEvent> randomEvents(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ListModeEvent> events(n);
  for (ListModeEvent& e : events) {
    e.crystal1 = static_cast<std::uint16_t>(rng() % 672);
    e.ring1 = static_cast<std::uint16_t>(rng() % 60);
    e.crystal2 = static_cast<std::uint16_t>(rng() % 672);
    e.ring2 = static_cast<std::uint16_t>(rng() % 60);
    e.tofLsb = static_cast<std::int16_t>(int(rng() % 241) - 120);
    e.flags = static_cast<std::uint8_t>(rng() % 4 == 0 ? kEventDelayed
                                                       : (rng() % 5 == 0 ? kEventRandom : 0));
  }
  return events;
}

bool sameEvent(const ListModeEvent& a, const ListModeEvent& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Offset of the first record of a file written by our writer.
std::uint64_t dataOffset(const std::string& bytes) {
  std::uint32_t headerBytes = 0;
  std::memcpy(&headerBytes, bytes.data() + 12, 4);
  return (16 + headerBytes + 15) / 16 * 16;
}

TEST(ListModeFile, RoundTripKeepsHeaderAndEveryRecord) {
  const std::uint64_t seed = test::randomSeed();
  test::TempDir dir;
  const auto events = randomEvents(10007, seed);
  writeListMode(dir / "a.lm", sampleHeader(), events);
  const ListModeData data = readListMode(dir / "a.lm");
  ASSERT_EQ(data.events.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i)
    ASSERT_TRUE(sameEvent(data.events[i], events[i])) << "record " << i;
  std::int64_t delayed = 0;
  for (const ListModeEvent& e : events) delayed += (e.flags & kEventDelayed) ? 1 : 0;
  const ListModeHeader& h = data.header;
  EXPECT_EQ(h.eventCount, 10007);
  EXPECT_EQ(h.delayedCount, delayed);
  EXPECT_EQ(h.promptCount, 10007 - delayed);
  EXPECT_EQ(scannerToJson(h.scanner), scannerToJson(scannerPreset("penn-labr3")));
  EXPECT_EQ(h.acquisitionSeconds, 600);
  EXPECT_EQ(h.scanStart, "2026-11-26T09:30:00");
  EXPECT_EQ(h.source, sampleHeader().source);
  ASSERT_TRUE(h.simulation.has_value());
  EXPECT_EQ(h.simulation->seed, 12345678901234567890ull);
  EXPECT_EQ(h.simulation->bandDecays, 1000000);
  EXPECT_EQ(h.simulation->trues, 900);

  const std::string bytes = readBytes(dir / "a.lm");
  EXPECT_EQ(bytes.substr(0, 8), "TWBPETLM");
  EXPECT_EQ(dataOffset(bytes) % 16, 0u);
  EXPECT_EQ(bytes.size(), dataOffset(bytes) + 12 * events.size());
  // Little-endian record layout: crystal1 at byte 0 of the first record.
  EXPECT_EQ(static_cast<unsigned char>(bytes[dataOffset(bytes)]), events[0].crystal1 & 0xff);
}

TEST(ListModeFile, StreamingWriterAndReaderInChunks) {
  test::TempDir dir;
  const auto events = randomEvents(5000, 7);
  ListModeHeader header = sampleHeader();
  header.simulation.reset();
  ListModeWriter writer(dir / "s.lm", header);
  for (std::size_t at = 0; at < events.size(); at += 999)
    writer.append(std::span(events).subspan(at, std::min<std::size_t>(999, events.size() - at)));
  EXPECT_FALSE(std::filesystem::exists(dir / "s.lm"));  // only the temporary file so far
  ListModeHeader final = header;
  final.simulation = ListModeSimulationTruth{1, 2, 0.5, 3.0, 4, 5};  // known only at the end
  writer.commit(final);
  ListModeReader reader(dir / "s.lm");
  EXPECT_EQ(reader.header().eventCount, 5000);
  ASSERT_TRUE(reader.header().simulation.has_value());
  EXPECT_EQ(reader.header().simulation->randoms, 5);
  std::vector<ListModeEvent> chunk(777), back;
  while (const std::size_t n = reader.readChunk(chunk))
    back.insert(back.end(), chunk.begin(), chunk.begin() + std::ptrdiff_t(n));
  ASSERT_EQ(back.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) ASSERT_TRUE(sameEvent(back[i], events[i]));
  EXPECT_EQ(reader.eventsLeft(), 0);
}

TEST(ListModeFile, EmptyFileRoundTrips) {
  test::TempDir dir;
  writeListMode(dir / "e.lm", sampleHeader(), {});
  EXPECT_EQ(readListMode(dir / "e.lm").events.size(), 0u);
}

TEST(ListModeFile, WriterThatIsNotCommittedLeavesNothing) {
  test::TempDir dir;
  {
    ListModeWriter writer(dir / "x.lm", sampleHeader());
    writer.append(randomEvents(10, 1));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(ListModeFile, WriterRefusesRecordsTheReaderWouldRefuse) {
  test::TempDir dir;
  ListModeWriter writer(dir / "x.lm", sampleHeader());
  auto events = randomEvents(3, 1);
  events[2].ring2 = 60;
  const std::string message = messageOf<ParameterError>([&] { writer.append(events); });
  EXPECT_NE(message.find("events[2].ring2"), std::string::npos) << message;
}

class ListModeHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    writeListMode(dir_ / "good.lm", sampleHeader(), randomEvents(100, 3));
    bytes_ = readBytes(dir_ / "good.lm");
  }
  // The FormatError message of reading `bytes` back from a file named bad.lm.
  std::string readError(const std::string& bytes) {
    writeBytes(dir_ / "bad.lm", bytes);
    return messageOf<FormatError>([&] { readListMode(dir_ / "bad.lm"); });
  }
  std::string withHeader(const nlohmann::json& header) {
    const std::string text = header.dump();
    std::string out = bytes_.substr(0, 12);
    const auto length = static_cast<std::uint32_t>(text.size());
    out.append(reinterpret_cast<const char*>(&length), 4);
    out += text;
    out.resize((out.size() + 15) / 16 * 16, '\0');
    return out + bytes_.substr(dataOffset(bytes_));
  }
  nlohmann::json goodHeader() {
    std::uint32_t length = 0;
    std::memcpy(&length, bytes_.data() + 12, 4);
    return nlohmann::json::parse(bytes_.substr(16, length));
  }
  test::TempDir dir_;
  std::string bytes_;
};

TEST_F(ListModeHostile, TruncatedFileNamesTheCounts) {
  const std::string message = readError(bytes_.substr(0, bytes_.size() - 5));
  EXPECT_NE(message.find("bad.lm: field 'events'"), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  EXPECT_NE(readError(bytes_.substr(0, 10)).find("truncated"), std::string::npos);
  EXPECT_NE(readError(bytes_.substr(0, 40)).find("bad.lm"), std::string::npos);
}

TEST_F(ListModeHostile, WrongMagicIsRefused) {
  std::string bad = bytes_;
  bad[0] = 'X';
  EXPECT_NE(readError(bad).find("is not a tomowb list-mode file"), std::string::npos);
}

TEST_F(ListModeHostile, WrongVersionOrHeaderLengthIsRefused) {
  std::string bad = bytes_;
  bad[8] = 2;
  EXPECT_NE(readError(bad).find("field 'version': is 2"), std::string::npos);
  bad = bytes_;
  const std::uint32_t huge = 0x7fffffff;
  std::memcpy(bad.data() + 12, &huge, 4);
  EXPECT_NE(readError(bad).find("field 'header length'"), std::string::npos);
}

TEST_F(ListModeHostile, AbsurdEventCountIsRefusedBeforeAllocating) {
  nlohmann::json header = goodHeader();
  header["events"] = std::int64_t{1} << 55;
  header["prompts"] = (std::int64_t{1} << 55) - 10;
  header["delayed"] = 10;
  const std::string message = readError(withHeader(header));
  EXPECT_NE(message.find("field 'events': the header says 36028797018963968 records"),
            std::string::npos)
      << message;
  header["events"] = 9.2e18;
  EXPECT_NE(readError(withHeader(header)).find("field 'events'"), std::string::npos);
  header["events"] = -1;
  EXPECT_NE(readError(withHeader(header)).find("field 'events'"), std::string::npos);
}

TEST_F(ListModeHostile, BadRecordsNameTheRecordAndField) {
  const std::uint64_t offset = dataOffset(bytes_);
  std::string bad = bytes_;
  const std::uint16_t crystal = 672;
  std::memcpy(bad.data() + offset + 12 * 41, &crystal, 2);
  EXPECT_EQ(readError(bad), (dir_ / "bad.lm").string() +
                                ": field 'events[41].crystal1': 672 is not below crystalsPerRing "
                                "(672)");
  bad = bytes_;
  const std::uint16_t ring = 60;
  std::memcpy(bad.data() + offset + 12 * 99 + 6, &ring, 2);
  EXPECT_EQ(readError(bad),
            (dir_ / "bad.lm").string() + ": field 'events[99].ring2': 60 is not below rings (60)");
  bad = bytes_;
  const std::int16_t tof = 200;  // 5000 ps: outside the +-3000 ps window
  std::memcpy(bad.data() + offset + 12 * 5 + 8, &tof, 2);
  EXPECT_NE(readError(bad).find("'events[5].tofLsb'"), std::string::npos);
  bad = bytes_;
  bad[offset + 12 * 7 + 10] = 8;
  EXPECT_NE(readError(bad).find("'events[7].flags': has unknown bits"), std::string::npos);
  bad = bytes_;
  bad[offset + 12 * 8 + 11] = 1;
  EXPECT_NE(readError(bad).find("'events[8].reserved'"), std::string::npos);
}

TEST_F(ListModeHostile, CountsThatDisagreeWithTheRecordsAreRefused) {
  nlohmann::json header = goodHeader();
  header["delayed"] = header["delayed"].get<std::int64_t>() + 1;
  header["prompts"] = header["prompts"].get<std::int64_t>() - 1;
  EXPECT_NE(readError(withHeader(header)).find("field 'delayed'"), std::string::npos);
  header = goodHeader();
  header["prompts"] = 0;
  EXPECT_NE(readError(withHeader(header)).find("prompts + delayed"), std::string::npos);
}

TEST_F(ListModeHostile, BadHeaderFieldsNameTheField) {
  nlohmann::json header = goodHeader();
  header["scanner"]["rings"] = 0;
  EXPECT_NE(readError(withHeader(header)).find("field 'scanner.rings'"), std::string::npos);
  header = goodHeader();
  header["tofLsbPs"] = 10;
  EXPECT_NE(readError(withHeader(header)).find("field 'tofLsbPs'"), std::string::npos);
  header = goodHeader();
  header["scanStart"] = "yesterday";
  EXPECT_NE(readError(withHeader(header)).find("field 'scanStart'"), std::string::npos);
  header = goodHeader();
  header["color"] = "blue";
  EXPECT_NE(readError(withHeader(header)).find("field 'color'"), std::string::npos);
  header = goodHeader();
  header["format"] = "other";
  EXPECT_NE(readError(withHeader(header)).find("field 'format'"), std::string::npos);
  header = goodHeader();
  header["simulation"]["bandFraction"] = 2;
  EXPECT_NE(readError(withHeader(header)).find("field 'simulation.bandFraction'"),
            std::string::npos);
  // Nested deeper than the JSON limit.
  std::string deep = "{\"source\": " + std::string(100, '[') + std::string(100, ']') + "}";
  std::string raw = bytes_.substr(0, 12);
  const auto length = static_cast<std::uint32_t>(deep.size());
  raw.append(reinterpret_cast<const char*>(&length), 4);
  raw += deep;
  EXPECT_NE(readError(raw).find("nested deeper"), std::string::npos);
}

TEST_F(ListModeHostile, NonZeroPaddingIsRefused) {
  const std::uint64_t offset = dataOffset(bytes_);
  std::uint32_t length = 0;
  std::memcpy(&length, bytes_.data() + 12, 4);
  if (16 + length == offset) GTEST_SKIP() << "this header needs no padding";
  std::string bad = bytes_;
  bad[offset - 1] = 'x';
  EXPECT_NE(readError(bad).find("field 'padding'"), std::string::npos);
}

}  // namespace
}  // namespace tomowb::pet
