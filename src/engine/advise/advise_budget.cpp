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
    return rounds ? longest_round : first_estimate;
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
    else if (budget_cut)
        out += " (budget spent; a round takes about " + fixed(estimate(), 2) + " s)";
    return out;
}

namespace {

// One round of `m` where the budget has room: false where a stop cut it
// short. *ran: whether a round was counted.
bool one_round(Measurement* m, double budget_seconds, const std::function<double()>& elapsed,
               bool* ran) {
    if (elapsed() + m->estimate() > budget_seconds) {
        m->budget_cut = true;
        return true;
    }
    const double t0 = elapsed();
    bool complete = false;
    try {
        complete = m->round(m->rounds);
    } catch (const SysError& e) {
        m->failed = e.what();
        if (!e.hint().empty())
            m->failed += " (" + e.hint() + ")";
        return true;
    } catch (const InvalidArgument& e) {
        m->failed = e.what();
        return true;
    } catch (const NotMeasurable& e) {
        m->failed = e.what();
        return true;
    }
    if (!complete)
        return false;
    const double took = elapsed() - t0;
    m->seconds += took;
    m->longest_round = std::max(m->longest_round, took);
    ++m->rounds;
    *ran = true;
    return true;
}

} // namespace

bool run_within_budget(const std::vector<Measurement*>& ms, double budget_seconds,
                       const std::function<double()>& elapsed,
                       const std::function<bool()>& should_stop) {
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
                if (!one_round(m, budget_seconds, elapsed, &ran))
                    return false;
            }
        }
    }
    return true;
}

} // namespace uringprobe
