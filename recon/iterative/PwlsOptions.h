// The options of penalised weighted least squares (PWLS-OS-SQS, PwlsSqs.h) that the other
// iterative methods do not have: the hyperbola penalty's strength and transition, Nesterov
// momentum and the change-based stop. A part of IterativeParams (IterativeReconstruction.h).
#pragma once

namespace tomowb::iterative {

struct PwlsOptions {
  // beta of the cost 1/2 ||y - A x||_W^2 + beta R(x): the penalty's strength, in the data term's
  // units (it grows with the weights: counts as weights want a beta about I0 times that of unit
  // weights). 0: weighted least squares without a penalty.
  double beta = 1.0;
  // delta of the hyperbola psi(t) = delta^2 (sqrt(1 + (t/delta)^2) - 1), in the volume's units
  // (1/mm for attenuation): differences well below delta are smoothed quadratically, edges well
  // above it cost only linearly (edge-preserving). The digest's 1-10 HU: 0.0002-0.002 /mm.
  double delta = 0.001;
  // Nesterov momentum after each subset update (reference/sf-projectors.md section 6, MIRT's
  // pwls_sqs_os_mom): faster, but with ordered subsets not guaranteed to converge.
  bool momentum = false;
  // Stop when RMS(x_k - x_(k-1)) / RMS(x_k) falls below this after an iteration (0: run every
  // iteration).
  double stopChange = 0.0;
};

}  // namespace tomowb::iterative
