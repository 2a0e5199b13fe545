// EventTrace: a slow event is kept with its receiver, its type and the named scopes that ran in
// it; nested deliveries belong to the top-level one; nothing is kept while the trace is off.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QEvent>
#include <QObject>
#include <chrono>
#include <thread>

#include "render/EventTrace.h"

namespace tomowb::render {
namespace {

void busyFor(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

TEST(EventTrace, KeepsTheSlowestEventsWithTheirScopes) {
  EventTrace::setEnabled(false);
  EventTrace::clear();
  QObject receiver;
  receiver.setObjectName(QStringLiteral("probe"));
  QEvent event(QEvent::MetaCall);
  {
    const EventTrace::Dispatch off(&receiver, &event);
    busyFor(5);
  }
  EXPECT_TRUE(EventTrace::slowest().empty()) << "off: nothing is kept";

  EventTrace::setEnabled(true);
  {
    const EventTrace::Dispatch slow(&receiver, &event);
    {
      const EventTrace::Scope outer("outer work");
      busyFor(20);
      {
        // A nested delivery (sendEvent inside a handler) is part of the top-level event.
        QEvent inner(QEvent::Timer);
        const EventTrace::Dispatch nested(&receiver, &inner);
        const EventTrace::Scope deep("inner work");
        busyFor(10);
      }
    }
    const EventTrace::Scope tiny("tiny");  // under half a millisecond: left out
  }
  {
    QEvent quick(QEvent::Timer);
    const EventTrace::Dispatch fast(&receiver, &quick);
    busyFor(1);
  }
  EventTrace::setEnabled(false);

  const std::vector<EventTrace::TracedEvent> kept = EventTrace::slowest();
  ASSERT_EQ(kept.size(), 2u);
  const EventTrace::TracedEvent& e = kept.front();
  EXPECT_GE(e.ms, 30.0);
  EXPECT_LT(kept.back().ms, e.ms);
  EXPECT_EQ(e.receiver, "QObject 'probe'");
  EXPECT_EQ(e.eventType, static_cast<int>(QEvent::MetaCall));
  EXPECT_EQ(eventTypeName(e.eventType), "MetaCall (queued slot)");
  ASSERT_EQ(e.scopes.size(), 2u);
  EXPECT_EQ(e.scopes[0].name, "outer work");
  EXPECT_EQ(e.scopes[0].depth, 0);
  EXPECT_GE(e.scopes[0].ms, 30.0);
  EXPECT_EQ(e.scopes[1].name, "inner work");
  EXPECT_EQ(e.scopes[1].depth, 1);
  EXPECT_GE(e.scopes[1].ms, 10.0);
  EXPECT_LT(e.scopes[1].ms, e.scopes[0].ms);
}

TEST(EventTrace, KeepsOnlyTheSlowestTwelve) {
  EventTrace::setEnabled(true);
  EventTrace::clear();
  QObject receiver;
  QEvent event(QEvent::Timer);
  for (int i = 1; i <= 15; ++i) {
    const EventTrace::Dispatch d(&receiver, &event);
    busyFor(i % 5 == 0 ? 8 : 1);
  }
  EventTrace::setEnabled(false);
  const auto kept = EventTrace::slowest();
  ASSERT_EQ(kept.size(), EventTrace::kKept);
  for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_GE(kept[i - 1].ms, kept[i].ms);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_GE(kept[i].ms, 8.0);  // the three 8 ms events
}

}  // namespace
}  // namespace tomowb::render
