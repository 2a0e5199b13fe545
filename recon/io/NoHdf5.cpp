// The HDF5 volume functions without libhdf5 (TOMOWB_HDF5 off), and the path test either way.
#include <algorithm>
#include <cctype>

#include "recon/core/Error.h"
#include "recon/io/Hdf5Volume.h"

namespace tomowb::io {

bool isHdf5Path(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".h5" || ext == ".hdf5";
}

#if !TOMOWB_HAVE_HDF5
namespace {
[[noreturn]] void unsupported(const std::filesystem::path& path) {
  throw FormatError(path, "HDF5 volumes need a build with libhdf5 (TOMOWB_HDF5)");
}
}  // namespace

bool hdf5VolumesSupported() noexcept {
  return false;
}
std::uint64_t createHdf5VolumeFile(const std::filesystem::path& path, const VolumeGrid&,
                                   const std::string&) {
  unsupported(path);
}
std::uint64_t hdf5VolumeDataOffset(const std::filesystem::path& path, const VolumeGrid&) {
  unsupported(path);
}
Volume readHdf5Volume(const std::filesystem::path& path) {
  unsupported(path);
}
void readHdf5VolumeBox(const std::filesystem::path& path, const Hdf5Box&, std::span<float>) {
  unsupported(path);
}
void writeHdf5VolumeChunked(const std::filesystem::path& path, const Volume&, const std::string&) {
  unsupported(path);
}
VolumeGrid readHdf5VolumeGrid(const std::filesystem::path& path) {
  unsupported(path);
}
Hdf5VolumeLayout readHdf5VolumeLayout(const std::filesystem::path& path) {
  unsupported(path);
}
void writeHdf5Volume(const std::filesystem::path& path, const Volume&, const std::string&) {
  unsupported(path);
}
#endif

}  // namespace tomowb::io
