// main() for tests of Qt-Core-only code (the run controller): a QCoreApplication, no display.
#include <gtest/gtest.h>

#include <QCoreApplication>

#include "recon/catalog/Builtins.h"

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  testing::InitGoogleTest(&argc, argv);
  QCoreApplication app(argc, argv);
  return RUN_ALL_TESTS();
}
