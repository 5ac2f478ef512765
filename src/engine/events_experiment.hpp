// An event loop's cost per event (seeds/004_*), as Samba's local.event
// test measures it: on each of `pipes` pipes write one byte, wait until the
// read ends are readable, read the bytes; repeat. Backends: epoll, poll,
// io_uring with a POLL_ADD re-armed after every event (uring_oneshot) or
// one multishot POLL_ADD per pipe (uring_multishot), each of those also
// with IORING_SETUP_DEFER_TASKRUN (+SINGLE_ISSUER) ("_defer"), and any
// waiter the caller brings (PostgreSQL's WaitEventSet in a backend).
#pragma once

#include "histogram.hpp"
#include "param_table.hpp"
#include "result.hpp"
#include "usage.hpp"

#include <functional>
#include <memory>
#include <string>

namespace uringprobe {

// What a backend must do: watch read ends for readability.
class EventWaiter {
public:
    virtual ~EventWaiter() = default;
    // Watch `fd` for readability; `index` comes back from wait().
    virtual void add(int fd, int index) = 0;
    // Block until at least one watched fd is readable; store the indexes
    // of the ready ones (at most `max`) and return how many.
    virtual int wait(int* ready, int max) = 0;
    // Called after the byte of `index` was read.
    virtual void rearm(int /*index*/) {}
    // Kernel entries made to wait (and submit), where the backend counts them.
    virtual long enters() const { return -1; }
};

struct EventsParams {
    EventsParams(); // every parameter at its default
    std::string backend;
    int pipes;
    long events;
};

// backend, pipes, events.
const ParamTable<EventsParams>& events_params();

// The backends this engine has itself; `external` names the one a caller
// may bring (empty: none).
void validate(const EventsParams& p, const Caps& caps, const std::string& external);

struct EventsResult {
    EventsParams params;
    Outcome outcome = Outcome::ok();
    long events = 0;
    long rounds = 0;
    double seconds = 0;
    LatencyHistogram round_latency; // write to every pipe .. every byte read
    UsageDelta usage;
    long enters = -1;
};

// `external` makes the waiter for the backend validate() accepted as
// external. Pipes and rings are gone when this returns or throws.
EventsResult run_events(const EventsParams& p,
                        const std::function<std::unique_ptr<EventWaiter>()>& external,
                        const std::function<bool()>& should_stop);

Table events_table(const EventsResult& r);

} // namespace uringprobe
