// The generated algorithm forms (gui/algorithms/): every built-in descriptor's form gives its
// defaults and takes any valid parameters back unchanged; a descriptor the window has never seen
// (made here, in its own catalogue) gets a working form with no edit in gui/; presets go through
// the descriptor's validate and a bad one is refused naming the field.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <memory>

#include "gui/AlgorithmPanel.h"
#include "gui/algorithms/AlgorithmForms.h"
#include "gui/algorithms/AlgorithmPresets.h"
#include "gui/algorithms/ParameterForm.h"
#include "gui/core/DemoData.h"
#include "gui/core/Workspace.h"
#include "recon/core/Error.h"

namespace tomowb::gui {
namespace {

using catalog::AlgorithmCatalog;
using catalog::AlgorithmDescriptor;
using catalog::ParameterSpec;

nlohmann::json::json_pointer at(const std::string& field) {
  return nlohmann::json::json_pointer("/" + field);
}

// A valid value of `spec` other than its default (where it has another).
nlohmann::json otherValue(const ParameterSpec& spec) {
  switch (spec.kind) {
    case ParameterSpec::Kind::Integer:
      return static_cast<std::int64_t>(spec.defaultValue.get<std::int64_t>() < spec.maximum
                                           ? spec.defaultValue.get<std::int64_t>() + 1
                                           : spec.minimum);
    case ParameterSpec::Kind::Real: {
      const double mid = (spec.minimum + spec.maximum) / 2;
      return mid != spec.defaultValue.get<double>()
                 ? mid
                 : spec.minimum + (spec.maximum - spec.minimum) / 4;
    }
    case ParameterSpec::Kind::OptionalReal:
      return spec.aliasFlag.empty() ? 0.5 : spec.aliasValue;
    case ParameterSpec::Kind::Flag:
      return !spec.defaultValue.get<bool>();
    case ParameterSpec::Kind::Choice:
      return spec.choices.back() != spec.defaultValue ? spec.choices.back() : spec.choices.front();
  }
  return nullptr;
}

nlohmann::json withGrid(nlohmann::json parameters) {
  parameters["volume"] = catalog::gridToJson(
      VolumeGrid::centred(VolumeShape{8, 8, 8}, Eigen::Vector3d::Constant(1.0)));
  return parameters;
}

TEST(ParameterForm, RoundTripsEveryBuiltinDescriptorsDefaultsAndValues) {
  for (const AlgorithmDescriptor& d : AlgorithmCatalog::builtins().all()) {
    SCOPED_TRACE(d.id);
    ParameterForm form(d, FormLook{});
    // Form -> JSON -> validate: the descriptor's defaults.
    const nlohmann::json shown = form.parameters();
    EXPECT_EQ(shown, d.defaults());
    const nlohmann::json validated = d.validate(withGrid(shown));
    for (const ParameterSpec& spec : d.parameters)
      EXPECT_EQ(validated[at(spec.field)], spec.defaultValue) << spec.field;
    // JSON -> form -> JSON: the same, for other valid values too.
    nlohmann::json other = nlohmann::json::object();
    for (const ParameterSpec& spec : d.parameters) other[at(spec.field)] = otherValue(spec);
    ASSERT_NO_THROW(d.validate(withGrid(other))) << other.dump();
    form.setParameters(other);
    EXPECT_EQ(form.parameters(), other);
    form.setParameters(d.defaults());
    EXPECT_EQ(form.parameters(), d.defaults());
    // The window's dressed form takes and gives the same values.
    std::unique_ptr<ParameterForm> window(makeAlgorithmForm(d));
    window->setParameters(other);
    EXPECT_EQ(window->parameters(), other);
  }
}

TEST(ParameterForm, ShowsEverySpecWithItsWidgetKindRangeAndHelp) {
  const AlgorithmDescriptor& sirt = AlgorithmCatalog::builtins().require("sirt");
  ParameterForm form(sirt, FormLook{});
  auto* iterations = form.findChild<QSpinBox*>(QStringLiteral("iterations"));
  ASSERT_NE(iterations, nullptr);
  EXPECT_EQ(iterations->minimum(), 1);
  EXPECT_EQ(iterations->maximum(), 1000000);
  EXPECT_EQ(iterations->toolTip().toStdString(), sirt.parameter("iterations")->help);
  auto* relaxation = form.findChild<QDoubleSpinBox*>(QStringLiteral("relaxation"));
  ASSERT_NE(relaxation, nullptr);
  EXPECT_DOUBLE_EQ(relaxation->maximum(), 2.0);
  // An optional real: a check box that enables its spin box.
  auto* upperOn = form.findChild<QCheckBox*>(QStringLiteral("upperBoundOn"));
  auto* upper = form.findChild<QDoubleSpinBox*>(QStringLiteral("upperBound"));
  ASSERT_NE(upperOn, nullptr);
  ASSERT_NE(upper, nullptr);
  EXPECT_FALSE(upper->isEnabled());
  upperOn->setChecked(true);
  upper->setValue(3.5);
  EXPECT_TRUE(upper->isEnabled());
  EXPECT_EQ(form.parameters()["upperBound"], 3.5);
  const AlgorithmDescriptor& fdk = AlgorithmCatalog::builtins().require("fdk");
  ParameterForm fdkForm(fdk, FormLook{});
  auto* window = fdkForm.findChild<QComboBox*>(QStringLiteral("filter.window"));
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->count(), int(fdk.parameter("filter/window")->choices.size()));
  EXPECT_NE(fdkForm.findChild<QCheckBox*>(QStringLiteral("fieldOfViewMask")), nullptr);
}

// A descriptor made here, in its own catalogue, as a new algorithm would be registered in
// recon/catalog/registerAlgorithms.cpp: the window gives it a working form from its specs alone.
AlgorithmDescriptor testSmoothing() {
  AlgorithmDescriptor d;
  d.id = "test-smoothing";
  d.label = "Test smoothing";
  d.summary = "a test-only algorithm: smoothing passes (never run)";
  d.modalities = {catalog::Modality::TransmissionCt};
  d.parameters = {
      catalog::integerParameter("passes", "--passes", "Passes", "smoothing passes", 1, 9, 3),
      catalog::choiceParameter("kernel/shape", "--shape", "Kernel shape", "box or gauss",
                               {"box", "gauss"}, "box"),
      catalog::flagParameter("clampNegative", "--clamp", "Clamp negative values",
                             "set voxels below 0 to 0"),
  };
  d.validate = [specs = d.parameters](const nlohmann::json& j) {
    nlohmann::json out = catalog::applyParameterSpecs(specs, j);
    catalog::gridFromJson(out.value("volume", nlohmann::json()));
    return out;
  };
  d.makeJob = [](const ProjectionStack&, const nlohmann::json&,
                 catalog::JobInputs) -> std::unique_ptr<catalog::ReconstructionJob> {
    return nullptr;
  };
  return d;
}

TEST(ParameterForm, ATestOnlyDescriptorGetsAWorkingFormWithNoGuiEdit) {
  AlgorithmCatalog catalog;
  catalog.add(testSmoothing());
  const AlgorithmDescriptor& d = catalog.require("test-smoothing");
  EXPECT_EQ(builtinFormLook(d.id), nullptr) << "no look: the plain generated form";
  EXPECT_EQ(algorithmListLabel(d), "Test smoothing");
  EXPECT_EQ(algorithmListTip(d).toStdString(), d.summary);
  std::unique_ptr<ParameterForm> form(makeAlgorithmForm(d));
  EXPECT_EQ(form->parameters(), d.defaults());
  auto* passes = form->findChild<QSpinBox*>(QStringLiteral("passes"));
  auto* shape = form->findChild<QComboBox*>(QStringLiteral("kernel.shape"));
  auto* clamp = form->findChild<QCheckBox*>(QStringLiteral("clampNegative"));
  ASSERT_NE(passes, nullptr);
  ASSERT_NE(shape, nullptr);
  ASSERT_NE(clamp, nullptr);
  EXPECT_EQ(passes->minimum(), 1);
  EXPECT_EQ(passes->maximum(), 9);
  EXPECT_EQ(passes->value(), 3);
  EXPECT_EQ(passes->toolTip(), "smoothing passes");
  EXPECT_EQ(shape->count(), 2);
  EXPECT_EQ(clamp->text(), "Clamp negative values");
  auto* label = qobject_cast<QLabel*>(form->formLayout()->labelForField(passes));
  ASSERT_NE(label, nullptr);
  EXPECT_EQ(label->text(), "Passes:");
  int changes = 0;
  QObject::connect(form.get(), &ParameterForm::changed, [&] { ++changes; });
  passes->setValue(7);
  shape->setCurrentIndex(shape->findData(QStringLiteral("gauss")));
  clamp->setChecked(true);
  EXPECT_EQ(changes, 3);
  const nlohmann::json expected = {
      {"passes", 7}, {"kernel", {{"shape", "gauss"}}}, {"clampNegative", true}};
  EXPECT_EQ(form->parameters(), expected);
  EXPECT_EQ(d.validate(withGrid(form->parameters()))["passes"], 7);
  form->setParameters({{"passes", 2}, {"kernel", {{"shape", "box"}}}});
  EXPECT_EQ(passes->value(), 2);
  EXPECT_EQ(shape->currentData().toString(), "box");
  EXPECT_TRUE(clamp->isChecked()) << "a field the JSON lacks keeps its value";
}

// The same descriptor registered beside the built-ins: the algorithm dock lists it after them,
// shows its generated form and hands its parameters to the run, with no edit in gui/.
TEST(ParameterForm, ANewDescriptorAppearsInTheAlgorithmPanelWithItsForm) {
  AlgorithmCatalog catalog;
  catalog::registerAlgorithms(catalog);
  catalog.add(testSmoothing());
  JobContext context;
  const DemoDataset demo = makeDemo(DemoKind::SheppLogan, 16, context);
  Workspace workspace;
  AlgorithmPanel panel(workspace, nullptr, catalog);
  workspace.setProjections(demo.projections, QStringLiteral("demo"));
  auto* combo = panel.findChild<QComboBox*>(QStringLiteral("algorithmCombo"));
  ASSERT_NE(combo, nullptr);
  ASSERT_EQ(combo->count(), int(catalog.all().size()));
  EXPECT_EQ(combo->itemText(combo->count() - 1), "Test smoothing");
  EXPECT_EQ(combo->itemText(0), "FDK (cone beam) / FBP (parallel)");
  ASSERT_TRUE(panel.setAlgorithm(QStringLiteral("test-smoothing")));
  EXPECT_EQ(panel.form().descriptor().id, "test-smoothing");
  EXPECT_EQ(panel.findChild<QWidget*>(QStringLiteral("filterBox")), nullptr);
  auto* passes = panel.findChild<QSpinBox*>(QStringLiteral("passes"));
  ASSERT_NE(passes, nullptr);
  passes->setValue(5);
  const nlohmann::json p = panel.algorithmParameters();
  EXPECT_EQ(p["passes"], 5);
  EXPECT_EQ(p["kernel"]["shape"], "box");
  EXPECT_TRUE(p.contains("volume"));
  QString why;
  EXPECT_TRUE(panel.validate(&why)) << why.toStdString();
  EXPECT_EQ(catalog.require("test-smoothing").validate(p)["passes"], 5);
}

std::string refusal(const nlohmann::json& preset, const AlgorithmDescriptor& d) {
  try {
    applyAlgorithmPreset(preset, d, withGrid(d.defaults()), "bad.json");
  } catch (const FormatError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(AlgorithmPresets, ABadPresetIsRefusedNamingTheField) {
  const AlgorithmDescriptor& fdk = AlgorithmCatalog::builtins().require("fdk");
  nlohmann::json preset = algorithmPresetToJson(
      fdk, {{"filter", {{"window", "hann"}, {"cutoff", 0.8}}}, {"variant", "fdk.bp.cpu"}}, "mine");
  const nlohmann::json applied = applyAlgorithmPreset(preset, fdk, withGrid({}), "mine.json");
  EXPECT_EQ(applied["filter"]["window"], "hann");
  EXPECT_EQ(applied["filter"]["cutoff"], 0.8);
  EXPECT_EQ(applied["redundancy"], "auto") << "validate completes the defaults";

  preset["parameters"]["filter"]["cutoff"] = 1.5;
  std::string why = refusal(preset, fdk);
  EXPECT_NE(why.find("bad.json"), std::string::npos) << why;
  EXPECT_NE(why.find("filter/cutoff"), std::string::npos) << why;
  preset["parameters"]["filter"]["cutoff"] = 0.5;
  preset["parameters"]["iterations"] = 5;
  why = refusal(preset, fdk);
  EXPECT_NE(why.find("parameters/iterations"), std::string::npos) << why;
  EXPECT_NE(why.find("not a parameter of FDK"), std::string::npos) << why;
  preset["parameters"].erase("iterations");
  preset["parameters"]["variant"] = "et.bp.cpu-voxel";
  why = refusal(preset, fdk);
  EXPECT_NE(why.find("parameters/variant"), std::string::npos) << why;
  // The test algorithm's presets, through its own validate.
  AlgorithmCatalog catalog;
  catalog.add(testSmoothing());
  const AlgorithmDescriptor& smoothing = catalog.require("test-smoothing");
  nlohmann::json mine = algorithmPresetToJson(smoothing, {{"passes", 12}}, "too many");
  why = refusal(mine, smoothing);
  EXPECT_NE(why.find("passes"), std::string::npos) << why;
  EXPECT_NE(why.find("from 1 to 9"), std::string::npos) << why;
  mine["parameters"]["passes"] = 4;
  EXPECT_EQ(refusal(mine, smoothing), "accepted");
}

TEST(AlgorithmPresets, ThePanelRefusesABadUserPresetAndShowsTheField) {
  PresetStore store;
  nlohmann::json bad = algorithmPresetToJson(AlgorithmCatalog::builtins().require("fdk"),
                                             {{"filter", {{"cutoff", 0.5}}}}, "bad cut-off");
  bad["parameters"]["filter"]["cutoff"] = -2;
  store.saveUser(QStringLiteral("bad cut-off (test)"), bad);
  Workspace workspace;
  AlgorithmPanel panel(workspace);
  ASSERT_TRUE(panel.presetNames().contains("bad cut-off (test)"));
  const double before = panel.params().filter.cutoff;
  EXPECT_FALSE(panel.applyPreset(QStringLiteral("bad cut-off (test)")));
  const QString why = panel.findChild<QLabel*>(QStringLiteral("runBlockedReason"))->text();
  EXPECT_TRUE(why.contains("filter/cutoff")) << why.toStdString();
  EXPECT_DOUBLE_EQ(panel.params().filter.cutoff, before) << "nothing of a refused preset applies";
  EXPECT_TRUE(panel.deleteUserPreset(QStringLiteral("bad cut-off (test)")));
  EXPECT_FALSE(panel.presetNames().contains("bad cut-off (test)"));
}

}  // namespace
}  // namespace tomowb::gui
