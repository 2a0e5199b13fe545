// Waiting in GUI tests: process events until a condition holds or a timeout passes.
#pragma once

#include <QElapsedTimer>
#include <QTest>
#include <functional>

namespace tomowb::test {

// True once `done` holds; false after `timeoutMs` milliseconds without it.
inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 10000) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > timeoutMs) return false;
    QTest::qWait(20);
  }
  return true;
}

}  // namespace tomowb::test
