// An event loop's cost per event (report 4), as Samba's local.event
// test measures it: a byte on each of `pipes` pipes, wait until the read
// ends are readable, read the bytes; repeat. The bytes are written by this
// process after its polls are armed (peer self), or by a child process
// each time this one, armed, asks for the next round (peer process: a
// cross-process ping-pong, the shape a server's loop sees). Loops:
// epoll, poll, io_uring with a POLL_ADD re-armed after every event and
// submitted before the next byte is written (uring_oneshot: each poll is
// armed, waits, and is woken) or one multishot POLL_ADD per pipe
// (uring_multishot), each of those also with IORING_SETUP_DEFER_TASKRUN
// (+SINGLE_ISSUER) ("_defer"), and any waiter the caller brings
// (PostgreSQL's WaitEventSet in a backend).
#pragma once

#include "contract/histogram.hpp"
#include "contract/param_table.hpp"
#include "contract/result.hpp"
#include "contract/usage.hpp"

#include <functional>
#include <memory>
#include <string>

namespace uringprobe {

// What a loop must do: watch read ends for readability.
class EventWaiter {
public:
    virtual ~EventWaiter() = default;
    // Watch `fd` for readability; `index` comes back from wait().
    virtual void add(int fd, int index) = 0;
    // Block until at least one watched fd is readable (or at its end: the
    // writer gone, an error), for at most `timeout_ms` (-1: no limit); store the indexes
    // of the ready ones (at most `max`) and return how many: 0 when the
    // time ran out or a signal interrupted the wait (the caller asks its
    // stop rule then).
    virtual int wait(int* ready, int max, int timeout_ms) = 0;
    // Called after the byte of `index` was read.
    virtual void rearm(int /*index*/) {}
    // Called before the next bytes are written: whatever was re-armed is
    // given to the kernel now, so that its polls wait for those bytes.
    // True when that took a system call.
    virtual bool submit_rearms() { return false; }
    // System calls made to wait (and to submit), where the backend counts them.
    virtual long enters() const { return -1; }
    // io_uring: polls that completed as they were armed (the byte already
    // there, so they never waited); -1 where there is no such thing.
    virtual long armed_ready() const { return -1; }
};

enum class EventPeer { self, process };

struct EventsParams {
    EventsParams(); // every parameter at its default
    std::string loop;
    int pipes;
    long events;
    EventPeer peer;
};

// loop, pipes, events, peer.
const ParamTable<EventsParams>& events_params();

// The loops this engine has itself; `external` names the one a caller
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
    long armed_ready = -1;
};

// `external` makes the waiter for the loop validate() accepted as
// external. Pipes, rings and the peer process are gone when this returns or
// throws; a peer that dies mid-run is an error saying so.
EventsResult run_events(const EventsParams& p,
                        const std::function<std::unique_ptr<EventWaiter>()>& external,
                        const std::function<bool()>& should_stop);

// The columns of its rows, as events_table() fills them.
std::vector<Column> events_columns();
Table events_table(const EventsResult& r);

// The experiment in this process by itself, its parameters as given
// (`uringprobe-cli events`): validated against the parameters' own ranges,
// its own loops only (pg_waiteventset is a backend's),
// stopped by should_stop().
Table run_events_in_process(const GivenParams& given, const std::function<bool()>& should_stop);

} // namespace uringprobe
