// OpenProjectionsDialog: File > Open projections… and the "Projections…" answer to "projections
// or volume?". The projections file (any format we read) and the geometry to attach: our
// geometry JSON, ASTRA cone_vec / parallel3d_vec text, 3x4 matrices or an IMOD .tlt, recognised
// by content unless a format is chosen; the stack's axis order (ours and TIGRE's
// [views][rows][cols], ASTRA's [rows][views][cols], or by the view count); the pitch that places
// a matrix geometry's detector. It says, as the fields change, what the geometry file was
// recognised as (GeometryImport's rules, docs/astra-users.md) and whether the projection file
// needs a geometry at all. It reads nothing else: the Data panel loads through
// LoadTask::startProjections, the CLI's loader, so the same files give the same projections.
#pragma once

#include <QDialog>
#include <optional>

#include "recon/io/ProjectionsWithGeometry.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace tomowb::gui {

class OpenProjectionsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit OpenProjectionsDialog(const QString& projectionsPath = {}, QWidget* parent = nullptr);

  QString projectionsPath() const;
  void setProjectionsPath(const QString& path);
  QString geometryPath() const;
  void setGeometryPath(const QString& path);
  // index 0: recognise by content; else the format.
  void setGeometryFormat(std::optional<GeometryFileFormat> format);
  void setLayout(io::ProjectionLayout layout);
  // What the form says.
  io::GeometryAttachment attachment() const;
  // What the geometry file was recognised as, or why the form cannot be accepted yet.
  QString statusText() const;
  QPushButton* okButton() const { return okButton_; }

 private:
  void browseProjections();
  void browseGeometry();
  void update();

  QLineEdit* projections_ = nullptr;
  QLineEdit* geometry_ = nullptr;
  QComboBox* format_ = nullptr;
  QComboBox* layout_ = nullptr;
  QDoubleSpinBox* matrixPitch_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* okButton_ = nullptr;
};

}  // namespace tomowb::gui
