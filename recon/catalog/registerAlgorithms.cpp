// One line per algorithm of this build, in the order the CLI's help and the window's algorithm
// list show them (AlgorithmCatalog.h).
#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/catalog/BuiltinAlgorithms.h"

namespace tomowb::catalog {

void registerAlgorithms(AlgorithmCatalog& catalog) {
  catalog.add(fdkAlgorithm());
  catalog.add(wbpAlgorithm());
  catalog.add(iterativeAlgorithm(iterative::IterativeMethod::Sirt));
  catalog.add(iterativeAlgorithm(iterative::IterativeMethod::OsSirt));
  catalog.add(iterativeAlgorithm(iterative::IterativeMethod::Sart));
  catalog.add(iterativeAlgorithm(iterative::IterativeMethod::Cgls));
  catalog.add(pwlsAlgorithm());
}

}  // namespace tomowb::catalog
