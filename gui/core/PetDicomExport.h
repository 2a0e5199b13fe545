// PetDicomExport: what File > Export DICOM series… pre-fills for a DIRECT result (issue #20,
// point 5): PET Image Storage through the DICOM export of issue #8 (recon/io/dicom/DicomOptions.h),
// with Units BQML for an image in Bq/mL (PROPCNTS for emissions per voxel), the radionuclide and
// radiopharmaceutical (the list-mode header's isotope; F-18 FDG by default), the decay correction
// the run applied (START: to the scan start, else NONE), the frame duration from the header's
// acquisition time, the scan start as the acquisition date-time when the header gives one, the
// corrections applied (NORM, ATTN, RAN) and the reconstruction method ("DIRECT OSEM 10 it 10 ss").
// Builds with DCMTK only (TOMOWB_HAVE_DICOM).
#pragma once

#ifdef TOMOWB_HAVE_DICOM

#include <nlohmann/json.hpp>

#include "recon/io/dicom/DicomOptions.h"

namespace tomowb::gui {

// `parameters`: the PET run's (RunSpec::parameters, gui/core/PetRun.h). `base`: the dialog's
// options, whose identity and ranges are kept.
io::dicom::DicomExportOptions petDicomExportOptions(const nlohmann::json& parameters,
                                                    io::dicom::DicomExportOptions base);

}  // namespace tomowb::gui

#endif
