#include "advise/advise_budget.hpp"

#include "contract/error.hpp"
#include "contract/number_text.hpp"

#include <algorithm>

namespace uringprobe {

bool Measurement::wants_more() const {
    if (!failed.empty())
        return false;
    if (rounds < kEnoughRounds)
        return true;
    return rounds < kMostRounds && spread() > kNoisyPct;
}

double Measurement::estimate() const {
    return std::max(rounds ? longest_round : first_estimate, cut_at_deadline);
}

std::string Measurement::account() const {
    std::string out = name + ": ";
    if (rounds)
        out += std::to_string(rounds) + (rounds == 1 ? " round" : " rounds") + " of " +
               fixed(seconds / rounds, 2) + " s";
    else
        out += "no round";
    if (!failed.empty())
        out += " (stopped by an error: " + failed + ")";
    else if (cut_at_deadline > 0)
        out += " (a round stopped unfinished at the deadline after " + fixed(cut_at_deadline, 2) +
               " s)";
    else if (budget_cut)
        out += " (budget spent; a round takes about " + fixed(estimate(), 2) + " s)";
    return out;
}

namespace {

enum class RoundEnd {
    next,     // counted, skipped for the budget, or ended by an error
    stopped,  // should_stop() fired
    deadline, // past the deadline: no round more
};

// One round of `m` where the budget has room. *ran: whether a round was
// counted.
RoundEnd one_round(Measurement* m, double budget_seconds, double deadline_seconds,
                   const std::function<double()>& elapsed, const std::function<bool()>& should_stop,
                   bool* ran) {
    if (elapsed() + m->estimate() > budget_seconds) {
        m->budget_cut = true;
        return RoundEnd::next;
    }
    const double t0 = elapsed();
    bool complete = false;
    try {
        complete = m->round(m->rounds);
    } catch (const SysError& e) {
        m->failed = e.what();
        if (!e.hint().empty())
            m->failed += " (" + e.hint() + ")";
        return RoundEnd::next;
    } catch (const InvalidArgument& e) {
        m->failed = e.what();
        return RoundEnd::next;
    } catch (const NotMeasurable& e) {
        m->failed = e.what();
        return RoundEnd::next;
    }
    const double took = elapsed() - t0;
    if (!complete) {
        if ((should_stop && should_stop()) || deadline_seconds <= 0 || elapsed() < deadline_seconds)
            return RoundEnd::stopped;
        m->budget_cut = true;
        m->cut_at_deadline = took;
        return RoundEnd::deadline;
    }
    m->seconds += took;
    m->longest_round = std::max(m->longest_round, took);
    ++m->rounds;
    *ran = true;
    return RoundEnd::next;
}

} // namespace

bool run_within_budget(const std::vector<Measurement*>& ms, double budget_seconds,
                       const std::function<double()>& elapsed,
                       const std::function<bool()>& should_stop, double deadline_seconds) {
    // the first ones' first rounds, then everything in turn
    for (const bool only_first : {true, false}) {
        for (bool ran = true; ran;) {
            ran = false;
            for (Measurement* m : ms) {
                if (only_first && (!m->first || m->rounds >= kFewestRounds))
                    continue;
                if (should_stop && should_stop())
                    return false;
                if (!m->wants_more())
                    continue;
                switch (
                    one_round(m, budget_seconds, deadline_seconds, elapsed, should_stop, &ran)) {
                case RoundEnd::next:
                    break;
                case RoundEnd::stopped:
                    return false;
                case RoundEnd::deadline:
                    // the rest wanted rounds the time had no room for
                    for (Measurement* other : ms)
                        other->budget_cut = other->budget_cut || other->wants_more();
                    return true;
                }
            }
        }
    }
    return true;
}

} // namespace uringprobe
