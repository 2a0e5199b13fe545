#include "recon/core/Error.h"

namespace tomowb {

FormatError::FormatError(const std::filesystem::path& path, std::string_view problem)
    : Error(path.string() + ": " + std::string(problem)), path_(path) {}

FormatError::FormatError(const std::filesystem::path& path, std::string_view field,
                         std::string_view problem)
    : Error(path.string() + ": field '" + std::string(field) + "': " + std::string(problem)),
      path_(path) {}

IoError::IoError(const std::filesystem::path& path, std::string_view problem)
    : Error(path.string() + ": " + std::string(problem)) {}

ParameterError::ParameterError(std::string_view parameter, std::string_view problem)
    : Error("parameter '" + std::string(parameter) + "': " + std::string(problem)) {}

}  // namespace tomowb
