// ErrorWording: the readers' typed errors ("broken.mrc: field 'nx': must be >= 1, got
// -1421147407") are exact but written for developers. A dialog shows a first sentence in lab-staff
// words ("This file is not a valid MRC file: its header is damaged.") and the exact detail after
// it (issue #21, point 8; ux-review-2026-11.md, section 5). Qt-free: a pure mapping of the
// message (and the file's name, for the format), tested in tests/gui/core/ErrorWordingTest.cpp.
#pragma once

#include <string>
#include <string_view>

namespace tomowb::gui {

struct ErrorWording {
  std::string plain;   // one sentence for lab staff, ending in a full stop
  std::string detail;  // the reader's message, unchanged
  // "plain\n\nDetails: detail": what a message box or a session report shows.
  std::string text() const;
};

// `detail` is the exception's message; `fileName` (may be empty) the file it concerns, whose
// extension names the format when the message does not.
ErrorWording wordLoadError(std::string_view detail, std::string_view fileName = {});

}  // namespace tomowb::gui
