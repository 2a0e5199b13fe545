#include "recon/io/Sha256.h"

#if TOMOWB_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/InputFile.h"

namespace tomowb {

#if TOMOWB_HAVE_OPENSSL

bool sha256Available() noexcept {
  return true;
}

namespace {

struct DigestContextDeleter {
  void operator()(EVP_MD_CTX* context) const noexcept { EVP_MD_CTX_free(context); }
};
using DigestContext = std::unique_ptr<EVP_MD_CTX, DigestContextDeleter>;

DigestContext newSha256Context() {
  DigestContext context(EVP_MD_CTX_new());
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
    throw Error("SHA-256: OpenSSL could not set up a digest");
  return context;
}

std::string finishHex(EVP_MD_CTX* context) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context, digest.data(), &length) != 1)
    throw Error("SHA-256: OpenSSL could not finish the digest");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

}  // namespace

std::string sha256Hex(std::string_view bytes) {
  DigestContext context = newSha256Context();
  if (EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) != 1)
    throw Error("SHA-256: OpenSSL could not digest the data");
  return finishHex(context.get());
}

std::string sha256HexOfFile(const std::filesystem::path& path) {
  // Through InputFile: a FIFO or a device (/dev/zero named in a run record's inputs) is refused
  // by name instead of blocking or hashing forever; the file's size is fixed when it is opened.
  const io::InputFile file(path);
  DigestContext context = newSha256Context();
  std::vector<std::byte> block(std::size_t{1} << 20);
  for (std::uint64_t offset = 0; offset < file.size();) {
    const auto n =
        static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), file.size() - offset));
    file.readAt(offset, std::span(block).first(n), "contents");
    if (EVP_DigestUpdate(context.get(), block.data(), n) != 1)
      throw Error("SHA-256: OpenSSL could not digest the data");
    offset += n;
  }
  return finishHex(context.get());
}

#else

bool sha256Available() noexcept {
  return false;
}
std::string sha256Hex(std::string_view) {
  throw Error("SHA-256: this build has no OpenSSL (libssl-dev)");
}
std::string sha256HexOfFile(const std::filesystem::path& path) {
  throw IoError(path, "cannot hash: this build has no OpenSSL (libssl-dev)");
}

#endif

}  // namespace tomowb
