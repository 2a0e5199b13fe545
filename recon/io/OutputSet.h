// OutputSet: the files one run reads and writes, so that a run can neither overwrite its own
// inputs nor leave a partial set of outputs (reviews D2, D13, D15, D17).
//
// Before any work: addInput() for every file the run reads (a raw + JSON sidecar or a MetaImage
// header brings the data file it actually names), addOutput() for every file it writes (a
// .mhd or .json brings its .raw), addReplacedFolder() for a folder replaced as a whole
// (--force), then check(): it refuses, naming the options, an output that is a file of an
// input (compared by device and inode where both exist, else by resolved path), two outputs
// that share a file, a replaced folder that holds an input or another output, an output that
// is an existing folder while it names a file (`-o o.mhd` onto a folder o.mhd/), and an output
// that is a device, FIFO or link to one (checkReplaceableFile).
//
// Writing: each output is written at staged(path), the same name inside a hidden staging
// folder beside it (writers keep their own companion files there too). commit() then moves every
// staged file into place at once: under an exclusive flock() of each destination folder, so two
// runs committing to one folder never interleave (a .mhd header of one run can no longer land
// on the .raw of another); old files are kept as hidden backups until every rename succeeded and
// put back if one fails. commit() first checks the cancel token: a run cancelled while writing
// leaves nothing. Destroying the set without commit() removes everything staged.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "recon/job/CancelToken.h"

namespace tomowb::io {

class OutputSet {
 public:
  explicit OutputSet(const CancelToken* cancel = nullptr);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  struct Input {
    std::filesystem::path path;
    std::string option;  // "-i", "--mask", "tilt angles (beside -i)"
    std::string role;    // for run records: "projections", "mask", "tilt angles", ...
    std::vector<std::filesystem::path> files;  // path and the data file it names, if any
  };
  struct Output {
    std::filesystem::path path;
    std::string option;                        // "-o", "--telemetry", "run record"
    std::vector<std::filesystem::path> files;  // path and its companion (.raw), if any
  };

  // A file the run reads; `option` names it in messages, `role` in run records (default: the
  // option). `withDataFile`: a raw + JSON sidecar or MetaImage header also brings the data file
  // it names (false for JSON that is not a sidecar: geometry, tolerances).
  void addInput(const std::filesystem::path& path, std::string option, std::string role = {},
                bool withDataFile = true);
  // A file (or a TIFF-slice folder) the run writes.
  void addOutput(const std::filesystem::path& path, std::string option);
  // A folder replaced as a whole (export dicom --force, a report folder with --force).
  void addReplacedFolder(const std::filesystem::path& folder, std::string option);

  const std::vector<Input>& inputs() const noexcept { return inputs_; }
  const std::vector<Output>& outputs() const noexcept { return outputs_; }

  // ParameterError for any conflict above (see the file comment).
  void check() const;

  // Where to write `output` until commit(); creates the staging folder beside it.
  std::filesystem::path staged(const std::filesystem::path& output);

  // Moves every staged file into place (see the file comment). Cancelled if the token is set
  // when it starts; IoError if a rename fails, after the old files were put back.
  void commit();
  // Removes everything staged now.
  void abandon() noexcept;

  // `message` (an error of a writer that wrote at a staged path) with every staging folder in
  // it replaced by the final one, so the user reads "out/r.raw", not the hidden name.
  static std::string withFinalNames(std::string message);

 private:
  struct Stage {
    std::filesystem::path destination;  // the folder the outputs go to
    std::filesystem::path folder;       // the hidden staging folder beside them
  };

  const CancelToken* cancel_;
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
  std::vector<Output> replacedFolders_;
  std::vector<Stage> stages_;
};

// The files a written `path` consists of: NAME.mhd and NAME.raw, NAME.json and NAME.raw, or
// the path alone.
std::vector<std::filesystem::path> filesWrittenFor(const std::filesystem::path& path);
// The files reading `path` opens: the data file a raw + JSON sidecar or a MetaImage header
// names (read from the header; the default NAME.raw when the header cannot be read), or the
// path alone.
std::vector<std::filesystem::path> filesReadFor(const std::filesystem::path& path);
// Whether two paths name the same file: (device, inode) when both exist, else the resolved
// (weakly canonical) paths.
bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b);
// Whether `inner` is `folder` or lies inside it (resolved paths).
bool isWithin(const std::filesystem::path& inner, const std::filesystem::path& folder);

}  // namespace tomowb::io
