// The window's algorithm forms (reference/architecture-next.md seam 4, "gui/ algorithms/ (one form
// per descriptor)"): makeAlgorithmForm gives the form of a catalogue descriptor, generated from
// its ParameterSpecs (ParameterForm.h) and, for the built-in algorithms, dressed in the look the
// window has always had (BuiltinFormLooks.cpp). An algorithm registered in
// recon/catalog/registerAlgorithms.cpp and unknown here gets the plain generated form: a new
// algorithm needs no edit in gui/.
#pragma once

#include <QString>
#include <string_view>

#include "gui/algorithms/FormLook.h"
#include "gui/algorithms/ParameterForm.h"
#include "recon/catalog/AlgorithmCatalog.h"

class QWidget;

namespace tomowb::gui {

// The look of a built-in algorithm's form, or nullptr: the plain generated form.
const FormLook* builtinFormLook(std::string_view id);

// A new form for `descriptor`, owned by `parent`.
ParameterForm* makeAlgorithmForm(const catalog::AlgorithmDescriptor& descriptor,
                                 QWidget* parent = nullptr);

// The algorithm list's item text and tool tip ("FDK (cone beam) / FBP (parallel)"): the look's,
// or the descriptor's label and summary.
QString algorithmListLabel(const catalog::AlgorithmDescriptor& descriptor);
QString algorithmListTip(const catalog::AlgorithmDescriptor& descriptor);

}  // namespace tomowb::gui
