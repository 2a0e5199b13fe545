#include "recon/core/Sha256.h"

#if TOMOWB_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#include <array>
#include <fstream>
#include <memory>
#include <vector>

#include "recon/core/Error.h"

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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path, "cannot open the file to hash it");
  DigestContext context = newSha256Context();
  std::vector<char> block(std::size_t{1} << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const std::streamsize got = in.gcount();
    if (got > 0 &&
        EVP_DigestUpdate(context.get(), block.data(), static_cast<std::size_t>(got)) != 1)
      throw Error("SHA-256: OpenSSL could not digest the data");
  }
  if (in.bad()) throw IoError(path, "read error while hashing the file");
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
