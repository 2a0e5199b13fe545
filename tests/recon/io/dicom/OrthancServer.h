// A real Orthanc (Debian's `orthanc` package, /usr/sbin/Orthanc) for the tests of sending to a
// PACS: started on two free ports with its own configuration and storage in a temporary folder,
// accepting the calling AE title "TOMOWB" only (echo, store and find), and killed when the object
// goes.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "support/TestSupport.h"

namespace tomowb::test {

inline constexpr const char* kOrthancProgram = "/usr/sbin/Orthanc";
inline constexpr const char* kOrthancAeTitle = "ORTHANC";
inline constexpr const char* kOrthancCallingAeTitle = "TOMOWB";

// A TCP port nobody listens on now (the kernel's pick for port 0).
inline int freeTcpPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw std::runtime_error("bind() to a free port failed");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// Whether process `pid` holds a TCP socket listening on `port` (its /proc/PID/fd against the
// listening sockets of /proc/net/tcp and tcp6): a port that answers may be another process's.
inline bool processListensOn(pid_t pid, int port) {
  std::vector<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      const std::size_t colon = local.rfind(':');
      if (colon == std::string::npos || state != "0A") continue;  // 0A: LISTEN
      if (std::stoi(local.substr(colon + 1), nullptr, 16) == port)
        inodes.push_back("socket:[" + inode + "]");
    }
  }
  std::error_code ec;
  for (const auto& fd :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    for (const std::string& inode : inodes)
      if (!ec && target == inode) return true;
  }
  return false;
}

class OrthancServer {
 public:
  // Tests run in parallel processes, each with its own Orthanc: a port another one took between
  // our pick and Orthanc's bind makes it stop at once, and we try again on new ports.
  OrthancServer() {
    for (int attempt = 1;; ++attempt) {
      dicomPort_ = freeTcpPort();
      httpPort_ = freeTcpPort();
      if (start()) return;
      if (attempt == 3) throw std::runtime_error("Orthanc stopped while starting:\n" + log());
    }
  }
  ~OrthancServer() { stop(); }
  OrthancServer(const OrthancServer&) = delete;
  OrthancServer& operator=(const OrthancServer&) = delete;

  int dicomPort() const { return dicomPort_; }
  const std::filesystem::path& storage() const { return storage_; }

  std::string log() const {
    std::ifstream in(logPath_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Every stored DICOM file, copied into `to` (one flat folder the DICOM reader can take).
  std::size_t copyStoredFiles(const std::filesystem::path& to) const {
    std::filesystem::create_directories(to);
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(storage_))
      if (entry.is_regular_file()) {
        std::filesystem::copy_file(entry.path(), to / (entry.path().filename().string() + ".dcm"));
        ++n;
      }
    return n;
  }

 private:
  // Starts Orthanc on the chosen ports; false when it stopped while starting.
  bool start() {
    std::filesystem::create_directories(folder_ / "storage");
    std::filesystem::create_directories(folder_ / "index");
    const nlohmann::json config{
        {"Name", "tomowb-test"},
        {"StorageDirectory", (folder_ / "storage").string()},
        {"IndexDirectory", (folder_ / "index").string()},
        {"StorageCompression", false},
        {"Plugins", nlohmann::json::array()},
        {"LuaScripts", nlohmann::json::array()},
        {"HttpServerEnabled", true},
        {"HttpPort", httpPort_},
        {"RemoteAccessAllowed", false},
        {"AuthenticationEnabled", false},
        {"DicomServerEnabled", true},
        {"DicomAet", kOrthancAeTitle},
        {"DicomPort", dicomPort_},
        {"DicomCheckCalledAet", true},
        // Only the AE registered below may talk to it: an unknown AE is refused.
        {"DicomAlwaysAllowEcho", false},
        {"DicomAlwaysAllowStore", false},
        {"DicomAlwaysAllowFind", false},
        {"DicomCheckModalityHost", false},
        {"DicomModalities", {{"tomowb", {kOrthancCallingAeTitle, "127.0.0.1", 11112}}}},
        {"DicomScpTimeout", 10},
        {"SaveJobs", false}};
    configPath_ = folder_ / "orthanc.json";
    std::ofstream(configPath_) << config.dump(2);
    logPath_ = folder_ / "orthanc.log";

    // Only async-signal-safe calls between fork() and exec().
    const std::string configArgument = configPath_.string(), logFile = logPath_.string();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork() failed");
    if (pid_ == 0) {
      const int log = ::open(logFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) {
        ::dup2(log, STDOUT_FILENO);
        ::dup2(log, STDERR_FILENO);
        ::close(log);
      }
      ::execl(kOrthancProgram, kOrthancProgram, configArgument.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Ready when it listens on both its ports itself: a port that answers may be another test's
    // Orthanc, which took it between our pick and this one's bind (this one then stops, but an
    // echo sent before it did went to the other: "Peer aborted Association", ctest -j2,
    // 2026-11-28). A start-up failure ends the process.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      const bool answers = processListensOn(pid_, dicomPort_) && processListensOn(pid_, httpPort_);
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      if (answers) return true;
      if (std::chrono::steady_clock::now() > deadline) {
        stop();
        throw std::runtime_error("Orthanc did not open port " + std::to_string(dicomPort_) +
                                 " within 60 s:\n" + log());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // SIGKILL: its storage is thrown away with the folder, and a graceful stop takes seconds.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  TempDir dir_;
  std::filesystem::path folder_ = dir_.path();
  std::filesystem::path storage_ = folder_ / "storage";
  std::filesystem::path configPath_, logPath_;
  int dicomPort_ = 0, httpPort_ = 0;
  pid_t pid_ = -1;
};

// Orthanc is required in CI (scripts/setup.sh installs it); elsewhere its absence skips the test
// with a message.
#define TOMOWB_REQUIRE_ORTHANC()                                                                \
  do {                                                                                          \
    if (!std::filesystem::exists(::tomowb::test::kOrthancProgram)) {                            \
      if (std::getenv("CI"))                                                                    \
        FAIL() << ::tomowb::test::kOrthancProgram                                               \
               << " is missing; scripts/setup.sh installs Debian's orthanc package";            \
      GTEST_SKIP() << ::tomowb::test::kOrthancProgram                                           \
                   << " is not installed (scripts/setup.sh installs Debian's orthanc package)"; \
    }                                                                                           \
  } while (0)

}  // namespace tomowb::test
