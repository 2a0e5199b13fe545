// main() for the GoogleTest executables of recon/ and the benchmarks' helpers: installs the
// built-in variants (the composition root, recon/catalog/Builtins.h), then runs the tests.
#include <gtest/gtest.h>

#include "recon/catalog/Builtins.h"

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
