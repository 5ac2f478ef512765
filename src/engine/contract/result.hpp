// The result contract every experiment follows: how a run ended (Outcome),
// the measurements every experiment's row starts with (SharedMeasures),
// and the table those rows go into, shared columns first.
#pragma once

#include "contract/histogram.hpp"
#include "contract/table.hpp"
#include "contract/usage.hpp"

#include <string>
#include <vector>

namespace uringprobe {

// How one experiment (or one variant of it) ended.
class Outcome {
public:
    static Outcome ok() { return Outcome(Kind::ok, {}); }
    // A stop was requested (cancel, terminate, Ctrl-C): the figures cover
    // what ran until then.
    static Outcome stopped() { return Outcome(Kind::stopped, {}); }
    // This machine cannot run it; `why` says what refused.
    static Outcome unsupported(std::string why) {
        return Outcome(Kind::unsupported, std::move(why));
    }

    bool is_ok() const { return kind_ == Kind::ok; }
    bool is_stopped() const { return kind_ == Kind::stopped; }
    bool is_unsupported() const { return kind_ == Kind::unsupported; }
    // The status column: "ok", "stopped" or "unsupported: <why>".
    std::string status() const;

private:
    enum class Kind { ok, stopped, unsupported };
    Outcome(Kind kind, std::string why) : kind_(kind), why_(std::move(why)) {}
    Kind kind_;
    std::string why_;
};

// The columns every experiment's rows start with.
struct SharedMeasures {
    std::string experiment;
    std::string variant;
    Outcome outcome = Outcome::ok();
    long ops = 0;
    double seconds = 0; // 0: nothing was timed (ops_per_sec is NULL)
    // Per-operation latency; null or empty: the percentiles are NULL.
    const LatencyHistogram* latency = nullptr;
    UsageDelta usage;
};

// An experiment's columns: experiment, variant, status, ops, seconds,
// ops_per_sec, p50_us, p99_us, max_us, user_ms, sys_ms, minflt, vcsw,
// ivcsw, then its own.
std::vector<Column> experiment_columns(const std::vector<Column>& own);

// Appends a row: the shared columns from `m`, then `own`, which must
// have one value per own column, each NULL or of its column's kind
// (std::logic_error otherwise).
void add_row(Table& t, const SharedMeasures& m, std::vector<Value> own);

// A real column that is NULL unless its denominator is positive.
Value ratio(double numerator, double denominator);

} // namespace uringprobe
