// DicomUid: new UIDs for studies, series, instances and frames of reference (PS3.5 section 9):
// at most 64 characters, digits and dots, no empty component and no leading zero in one.
// Without an organisation root, UIDs are "2.25." followed by the decimal value of a random
// (version 4) UUID, which needs no registration (PS3.5 B.2). With a root, the root followed by
// ".<time-derived and random digits>". Keyed UIDs (same key, same UID) derive the UUID from the
// key's SHA-256 (a version 8 UUID), so series of one acquisition share a Frame of Reference.
#pragma once

#include <string>
#include <string_view>

namespace tomowb::io::dicom {

// True if `uid` is a syntactically valid UID.
bool isValidUid(std::string_view uid);
// ParameterError naming `parameter` if `root` is not a valid UID prefix of at most 40 characters
// (so that 24 digits of uniqueness remain).
void checkUidRoot(std::string_view root, std::string_view parameter = "uid-root");

// A new, unique UID under `root` (empty: "2.25." + random UUID).
std::string newUid(std::string_view root = {});
// The same UID for the same (root, key), different for different keys.
std::string uidForKey(std::string_view key, std::string_view root = {});

}  // namespace tomowb::io::dicom
