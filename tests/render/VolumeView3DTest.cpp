// VolumeView3D: GPU volume rendering works under Xvfb (llvmpipe) and shows the data; the slice
// plane fallback shows it too; a live-preview swap keeps the camera; a big volume is reduced on
// a worker thread.
#include <gtest/gtest.h>
#include <vtkCamera.h>
#include <vtkRenderer.h>

#include <QCoreApplication>
#include <QImage>
#include <QTest>
#include <QThreadPool>
#include <memory>

#include "render/VolumeView3D.h"

namespace tomowb::render {
namespace {

std::shared_ptr<Volume> sphereVolume() {
  auto v = std::make_shared<Volume>(Volume::centred({48, 48, 48}, Eigen::Vector3d::Ones()));
  for (int z = 0; z < 48; ++z)
    for (int y = 0; y < 48; ++y)
      for (int x = 0; x < 48; ++x) {
        const double r2 =
            (x - 23.5) * (x - 23.5) + (y - 23.5) * (y - 23.5) + (z - 23.5) * (z - 23.5);
        v->at(x, y, z) = r2 < 15.0 * 15.0 ? 1000.0f : 0.0f;
      }
  return v;
}

// Pixels of the central quarter that differ clearly from the background.
double litFraction(const QImage& image, const QImage& empty) {
  std::int64_t lit = 0, total = 0;
  for (int y = image.height() / 4; y < 3 * image.height() / 4; ++y)
    for (int x = image.width() / 4; x < 3 * image.width() / 4; ++x, ++total) {
      const QColor a = image.pixelColor(x, y), b = empty.pixelColor(x, y);
      if (std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
              std::abs(a.blue() - b.blue()) >
          60)
        ++lit;
    }
  return static_cast<double>(lit) / total;
}

TEST(VolumeView3D, GpuVolumeRenderingShowsTheData) {
  VolumeView3D view;
  view.resize(360, 300);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  const QImage empty = view.grabImage();
  view.setVolume(sphereVolume());
  view.setWindowLevel(800, 400);
  QImage image = view.grabImage();
  image = view.grabImage();  // a second frame, after the support check
  image.save("/tmp/volumeview3d-gpu.png");
  EXPECT_EQ(view.mode(), VolumeView3D::Mode::VolumeRendering)
      << "the GPU ray caster reported unsupported under this GL";
  EXPECT_GT(litFraction(image, empty), 0.2);
}

TEST(VolumeView3D, SlicePlaneFallbackShowsTheData) {
  VolumeView3D view;
  view.resize(360, 300);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  const QImage empty = view.grabImage();
  view.setForceSlicePlanes(true);
  view.setVolume(sphereVolume());
  view.setWindowLevel(1000, 500);
  const QImage image = view.grabImage();
  image.save("/tmp/volumeview3d-planes.png");
  EXPECT_EQ(view.mode(), VolumeView3D::Mode::SlicePlanes);
  EXPECT_GT(litFraction(image, empty), 0.2);
}

TEST(VolumeView3D, PreviewSwapKeepsTheCamera) {
  VolumeView3D view;
  view.resize(200, 200);
  view.setVolume(sphereVolume());
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  (void)view.grabImage();
  view.renderer()->GetActiveCamera()->Azimuth(30);
  double before[3];
  view.renderer()->GetActiveCamera()->GetPosition(before);
  view.setVolume(sphereVolume(), true);
  (void)view.grabImage();
  double after[3];
  view.renderer()->GetActiveCamera()->GetPosition(after);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(before[i], after[i]);
}

TEST(VolumeView3D, ABigVolumeIsReducedOffTheGuiThreadAndKeepsWhatWasGivenMeanwhile) {
  VolumeView3D view;
  view.setVolume(sphereVolume());  // small: shown at once
  ASSERT_FALSE(view.reductionPending());
  ASSERT_EQ(view.volume()->nx(), 48);
  auto big = std::make_shared<Volume>(Volume::centred({200, 200, 200}, Eigen::Vector3d::Ones()));
  for (std::int64_t z = 0; z < 200; ++z)
    for (std::int64_t y = 0; y < 200; ++y)
      for (std::int64_t x = 0; x < 200; ++x) big->at(x, y, z) = static_cast<float>(x);
  view.setVolume(big);
  EXPECT_TRUE(view.reductionPending());
  EXPECT_EQ(view.volume()->nx(), 48);  // the one before, until the worker is done
  // What the linked views give in the meantime is kept when the reduced volume arrives.
  view.setWindowLevel(123, 45);
  QTRY_VERIFY_WITH_TIMEOUT(!view.reductionPending(), 30000);
  ASSERT_TRUE(view.volume());
  const std::int64_t f = 200 / view.volume()->nx();
  ASSERT_GE(f, 2);
  EXPECT_EQ(view.volume()->nx() * f, 200);
  EXPECT_NEAR(view.volume()->at(0, 0, 0), 0.5 * double(f - 1), 1e-4);  // the mean of x = 0..f-1
  EXPECT_NEAR(view.volume()->at(3, 7, 9), 3.0 * double(f) + 0.5 * double(f - 1), 1e-3);
  EXPECT_EQ(view.windowLevel().window, 123);
  EXPECT_EQ(view.windowLevel().level, 45);

  // A newer volume wins over a reduction still under way.
  view.setVolume(big);
  view.setVolume(sphereVolume());
  EXPECT_FALSE(view.reductionPending());
  QThreadPool::globalInstance()->waitForDone();
  QCoreApplication::processEvents();
  EXPECT_EQ(view.volume()->nx(), 48);
}

}  // namespace
}  // namespace tomowb::render
