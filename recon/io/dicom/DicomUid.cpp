#include "recon/io/dicom/DicomUid.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>

#include "recon/core/Error.h"
#include "recon/io/dicom/Sha256.h"

namespace tomowb::io::dicom {

namespace {

constexpr std::size_t kMaxUidLength = 64;
constexpr std::size_t kMaxRootLength = 40;
constexpr std::string_view kUuidRoot = "2.25";

using Uuid = std::array<std::uint8_t, 16>;

// The UUID as one unsigned 128-bit decimal number (PS3.5 B.2), by long division of the bytes.
std::string uuidToDecimal(Uuid value) {
  std::string digits;
  bool nonZero = true;
  while (nonZero) {
    nonZero = false;
    unsigned remainder = 0;
    for (std::uint8_t& byte : value) {
      const unsigned current = (remainder << 8) | byte;
      byte = static_cast<std::uint8_t>(current / 10);
      remainder = current % 10;
      nonZero = nonZero || byte != 0;
    }
    digits.push_back(static_cast<char>('0' + remainder));
  }
  return std::string(digits.rbegin(), digits.rend());
}

Uuid randomUuid() {
  static thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(),
                       device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }()};
  Uuid uuid{};
  for (std::size_t i = 0; i < uuid.size(); i += 8) {
    std::uint64_t word = generator();
    for (std::size_t b = 0; b < 8; ++b) uuid[i + b] = static_cast<std::uint8_t>(word >> (8 * b));
  }
  uuid[6] = static_cast<std::uint8_t>((uuid[6] & 0x0F) | 0x40);  // version 4
  uuid[8] = static_cast<std::uint8_t>((uuid[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return uuid;
}

Uuid uuidFromKey(std::string_view key) {
  const std::string hex = sha256Hex(key);
  Uuid uuid{};
  for (std::size_t i = 0; i < uuid.size(); ++i)
    uuid[i] = static_cast<std::uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  uuid[6] = static_cast<std::uint8_t>((uuid[6] & 0x0F) | 0x80);  // version 8 (custom, RFC 9562)
  uuid[8] = static_cast<std::uint8_t>((uuid[8] & 0x3F) | 0x80);
  return uuid;
}

// A decimal suffix of at most `maxDigits` digits without a leading zero, from the UUID.
std::string suffixDigits(const Uuid& uuid, std::size_t maxDigits) {
  std::string digits = uuidToDecimal(uuid);
  if (digits.size() > maxDigits) digits = digits.substr(digits.size() - maxDigits);
  const auto firstNonZero = digits.find_first_not_of('0');
  return firstNonZero == std::string::npos ? "0" : digits.substr(firstNonZero);
}

std::string uidFrom(const Uuid& uuid, std::string_view root) {
  if (root.empty()) return std::string(kUuidRoot) + "." + uuidToDecimal(uuid);
  checkUidRoot(root);
  const std::size_t room = kMaxUidLength - root.size() - 1;
  return std::string(root) + "." + suffixDigits(uuid, room);
}

}  // namespace

bool isValidUid(std::string_view uid) {
  if (uid.empty() || uid.size() > kMaxUidLength) return false;
  std::size_t componentStart = 0;
  for (std::size_t i = 0; i <= uid.size(); ++i) {
    if (i == uid.size() || uid[i] == '.') {
      const std::size_t length = i - componentStart;
      if (length == 0) return false;
      if (length > 1 && uid[componentStart] == '0') return false;
      componentStart = i + 1;
    } else if (uid[i] < '0' || uid[i] > '9') {
      return false;
    }
  }
  return true;
}

void checkUidRoot(std::string_view root, std::string_view parameter) {
  if (!isValidUid(root))
    throw ParameterError(parameter, "'" + std::string(root) +
                                        "' is not a UID root: digits and dots, no empty "
                                        "component, no leading zero");
  if (root.size() > kMaxRootLength)
    throw ParameterError(parameter, "'" + std::string(root) + "' is longer than " +
                                        std::to_string(kMaxRootLength) +
                                        " characters; UIDs need room for 24 unique digits");
}

std::string newUid(std::string_view root) {
  if (root.empty()) return uidFrom(randomUuid(), root);
  // Under an organisation root: the time in microseconds keeps UIDs ordered and unique across
  // runs; random digits keep them unique within one microsecond and across machines.
  checkUidRoot(root);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::size_t room = kMaxUidLength - root.size() - 2;
  std::string time = std::to_string(micros);
  const std::size_t randomRoom = room > time.size() ? room - time.size() : 0;
  std::string random = randomRoom > 0 ? suffixDigits(randomUuid(), randomRoom) : "";
  if (randomRoom == 0) return std::string(root) + "." + time.substr(0, room);
  return std::string(root) + "." + time + "." + random;
}

std::string uidForKey(std::string_view key, std::string_view root) {
  return uidFrom(uuidFromKey(key), root);
}

}  // namespace tomowb::io::dicom
