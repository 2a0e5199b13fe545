// Writes one projection stack (our raw + JSON pair) in every stack format the out-of-core slab
// runs read a band of rows at a time (issue #22, point 2; docs/scale.md "Input"), for
// bench/ooc-band-reads.sh: OUTDIR/stack.npy, stack.mha, stack.mrc, stack.tif (multi-page),
// series/ (a TIFF file per view), all [views][rows][cols] float32, and geometry.json.
// Usage: tomowb-bench-stack-files PROJECTIONS.json OUTDIR
#include <cstdio>
#include <exception>
#include <filesystem>

#include "recon/io/GeometryJson.h"
#include "recon/io/TiffIo.h"
#include "recon/io/VolumeFiles.h"

int main(int argc, char** argv) {
  using namespace tomowb;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PROJECTIONS.json OUTDIR\n", argv[0]);
    return 2;
  }
  try {
    const std::filesystem::path out = argv[2];
    std::filesystem::create_directories(out);
    const ProjectionStack p = io::readProjections(argv[1]);
    Volume views = Volume::centred({p.cols(), p.rows(), p.viewCount()}, Eigen::Vector3d::Ones());
    std::copy(p.pixels().begin(), p.pixels().end(), views.voxels().begin());
    saveGeometry(out / "geometry.json", p.geometry());
    for (const char* name : {"stack.npy", "stack.mha", "stack.mrc"})
      io::writeVolume(out / name, views);
#if TOMOWB_HAVE_TIFF
    io::writeVolume(out / "stack.tif", views);
    io::writeTiffSlices(out / "series", views);
#endif
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tomowb-bench-stack-files: %s\n", e.what());
    return 1;
  }
}
