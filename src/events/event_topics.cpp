#include "events/event_topics.hpp"

#include "events/stream_parking.hpp"

namespace stet::detail {
namespace {

thread_local constinit event_topics* installed = nullptr;
thread_local constinit stream_parking* parking = nullptr;

}  // namespace

event_topics* current_event_topics() noexcept { return installed; }

void set_current_event_topics(event_topics* t) noexcept { installed = t; }

stream_parking* current_stream_parking() noexcept { return parking; }

scoped_stream_parking::scoped_stream_parking(stream_parking* p) noexcept : outer_(parking) { parking = p; }

scoped_stream_parking::~scoped_stream_parking() { parking = outer_; }

}  // namespace stet::detail
