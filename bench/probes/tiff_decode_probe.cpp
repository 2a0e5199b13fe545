// Probe (issue #22, point 2): io::readTiffVolume of a deflate float32 stack of 96 pages of
// 1024 x 1024 (noisy detector-like values, 53 MB on disk), 5 reads; OMP_NUM_THREADS sets the
// decoding threads. Build from the repository root after building `build`:
//   g++ -O2 -std=c++20 -fopenmp -I. -isystem /usr/include/eigen3 -DTOMOWB_HAVE_TIFF=1 \
//     bench/probes/tiff_decode_probe.cpp build/recon/libtomowb_io.a build/recon/libtomowb_core.a \
//     build/recon/libtomowb_device.a -ltiff -L/usr/local/cuda/lib64 -lcudart -o tiff_decode_probe
// Usage: tiff_decode_probe FILE make   (writes the stack), then tiff_decode_probe FILE
#include <tiffio.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "recon/io/TiffIo.h"
int main(int argc, char** argv) {
  const char* path = argv[1];
  const int pages = 96, w = 1024, h = 1024;
  if (argc > 2) {
    TIFF* tif = TIFFOpen(path, "w");
    std::vector<float> row(w);
    for (int p = 0; p < pages; ++p) {
      TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
      TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
      TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 32);
      TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
      TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
      TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
      TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
      TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 16);
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x)
          row[x] = std::round(1000.0f + 100.0f * std::sin(0.01f * x + 0.02f * y + p) +
                              float((x * 2654435761u + y * 40503u + p * 97u) % 64u));
        TIFFWriteScanline(tif, row.data(), y, 0);
      }
      TIFFWriteDirectory(tif);
    }
    TIFFClose(tif);
    return 0;
  }
  for (int r = 0; r < 5; ++r) {
    const auto t = std::chrono::steady_clock::now();
    const tomowb::Volume v = tomowb::io::readTiffVolume(path);
    std::printf("%.3f s (%lld slices)\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(),
                (long long)v.nz());
  }
}
