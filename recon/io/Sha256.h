// Sha256: SHA-256 digests (OpenSSL's EVP interface) as lower-case hex, for provenance hashes of
// geometries and input files (run records, DICOM provenance). In a build without OpenSSL
// (TOMOWB_HAVE_OPENSSL == 0) sha256Available() is false and the functions throw Error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tomowb {

bool sha256Available() noexcept;

std::string sha256Hex(std::string_view bytes);
// The digest of a file's content, read in 1 MiB blocks; IoError if it cannot be read.
std::string sha256HexOfFile(const std::filesystem::path& path);

}  // namespace tomowb
