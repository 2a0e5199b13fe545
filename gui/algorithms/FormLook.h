// FormLook: how the window shows an algorithm's parameters when the generated form's plain look
// (ParameterForm.h: one row per ParameterSpec, labelled with the spec's label) is not what the
// window has always shown: mnemonics, item texts of a choice, a fraction shown in percent, an
// optional bound offered as one check box, the start values of the window. A look changes only
// how a value is shown and edited, never which values exist or which are valid: those come from
// the descriptor. An algorithm without a look gets the plain generated form.
#pragma once

#include <QString>
#include <QStringList>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tomowb::gui {

struct FieldLook {
  QString label;             // row label or check-box text ("&Window:"); empty: the spec's
  QStringList choiceLabels;  // Choice: item texts, in the order of the spec's choices
  QString objectName;        // the editor's; empty: the field, '/' written '.'
  QString checkName;         // the check box of an optional value; empty: objectName + "On"
  QString tip;               // tool tip; empty: the spec's help
  double minimum = NAN, maximum = NAN, step = NAN;  // the spin box's (shown units); NAN: spec's
  int decimals = -1;                                // -1: 4
  double scale = 1;        // shown = value * scale (100: a fraction shown in per cent)
  QString suffix;          // " %"
  bool aliasOnly = false;  // OptionalReal with an alias flag: only the alias, as one check box
  bool zeroIsOff = false;  // Real whose 0 means "off": a check box and a spin box
  double offShows = NAN;   // what the spin box shows while off (shown units)
  // Real: a ScientificSpinBox ("1e-3", "2.5e+05") with this many significant digits, for values
  // that span decades; `step` is then its smallest step from 0. 0: a fixed-decimals spin box.
  int significantDigits = 0;
  nlohmann::json initial;  // the window's start value, when not the descriptor's default
};

struct FormLook {
  QString title;       // the group box's; empty: "Parameters"
  QString objectName;  // the group box's; empty: "algorithmParameters"
  QString listLabel;   // the algorithm list's item; empty: the descriptor's label
  QString listTip;     // its tool tip; empty: the descriptor's summary
  QString memoryWhat;  // what the host memory estimate holds ("weights, residual, ...")
  // The projector model chosen when the algorithm is chosen, where the geometry and the device
  // allow it ("sf-tt" for PWLS); empty: the registry's default pair.
  QString projectorModel;
  std::map<std::string, FieldLook> fields;
};

}  // namespace tomowb::gui
