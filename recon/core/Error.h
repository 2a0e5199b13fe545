// Error types of the core. Every error a user can cause names what was wrong: the file and field
// for bad input (FormatError), the parameter for bad settings (ParameterError), the sizes for
// memory (OutOfMemoryError). Programmer errors use assert, not these.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tomowb {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file's content is not what we can read: "scan.json: field 'detector.rows': must be > 0".
class FormatError : public Error {
 public:
  FormatError(const std::filesystem::path& path, std::string_view problem);
  FormatError(const std::filesystem::path& path, std::string_view field, std::string_view problem);
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

// An I/O call failed (cannot open, short write, rename failed).
class IoError : public Error {
 public:
  IoError(const std::filesystem::path& path, std::string_view problem);
};

// A parameter given by the user (CLI option, dialog field, JSON value) is out of range.
class ParameterError : public Error {
 public:
  ParameterError(std::string_view parameter, std::string_view problem);
};

// An allocation would not fit: says what was asked for and what is available.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// Thrown by CancelToken::throwIfRequested(); a job that sees it stops and writes nothing.
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled") {}
};

}  // namespace tomowb
