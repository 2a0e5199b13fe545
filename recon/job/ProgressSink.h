// Progress of a job: a stage name ("filter", "backproject") and the fraction of the whole job
// done (0..1). The CLI draws a bar on stderr; the GUI posts throttled queued signals.
#pragma once

#include <string_view>

namespace tomowb {

struct ProgressSink {
  virtual ~ProgressSink() = default;
  virtual void report(std::string_view stage, double fraction) = 0;
};

}  // namespace tomowb
