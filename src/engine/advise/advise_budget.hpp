// The time budget of uringprobe_advise(): measurements take turns round by
// round, each round only when the budget has room for it, until each has
// the rounds it wants. Knows nothing of what a round measures.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace uringprobe {

// A spread over kEnoughRounds rounds is sure enough (a median's 95%
// interval over 5 runs is about its middle runs' range); a noisier
// measurement (spread above kNoisyPct) gets up to kMostRounds; a decision
// from fewer than kFewestRounds rounds is only "low".
constexpr int kEnoughRounds = 5;
constexpr int kMostRounds = 7;
constexpr int kFewestRounds = 3;
constexpr double kNoisyPct = 10;

// A measurement this process cannot make well enough to report (its limits
// allow too small a version of it): the row says why instead.
class NotMeasurable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Something measured in rounds, taking turns with the others.
struct Measurement {
    std::string name;
    double first_estimate = 0; // seconds for a round before one was timed
    // Runs one round; false when a stop cut it short (not counted). May
    // throw SysError, InvalidArgument or NotMeasurable: the measurement
    // then ends with that error in `failed`.
    std::function<bool(int round)> round;
    // The spread (%) of what the advice is decided on, after two rounds.
    std::function<double()> spread;
    int rounds = 0;
    double longest_round = 0;
    double seconds = 0;
    std::string failed;      // the error that ended it
    bool budget_cut = false; // it wanted a round the budget had no room for
    // seconds its round had run when the deadline stopped it (not counted)
    double cut_at_deadline = 0;
    // What a decision the others' rows lean on needs (io_method's cold
    // reads and fork cost): its first kFewestRounds rounds come before any
    // round of the others.
    bool first = false;

    bool wants_more() const;
    // Seconds the next round is expected to take: the longest so far, and
    // no less than a round the deadline stopped had run.
    double estimate() const;
    // "fork cost at 982 rings: 5 rounds of 1.31 s" / "...: no round (...)"
    std::string account() const;
};

// Rounds of all measurements in turn while the budget has room for the
// next one (those marked `first` in turn alone until each has
// kFewestRounds): a round is begun only when elapsed() plus its estimate
// stays within budget_seconds. A round that runs past deadline_seconds
// (0: none) is stopped by the measurement's own stop, which the caller
// makes fire then: it is not counted, and the rounds end there with their
// results. Returns false when should_stop() fired or stopped a round.
// elapsed() counts seconds since the budget began.
bool run_within_budget(const std::vector<Measurement*>& ms, double budget_seconds,
                       const std::function<double()>& elapsed,
                       const std::function<bool()>& should_stop, double deadline_seconds = 0);

} // namespace uringprobe
