#include "contract/result.hpp"

#include <stdexcept>

namespace uringprobe {

namespace {
const std::vector<std::string> kSharedColumns = {
    "experiment", "variant", "status",  "ops",    "seconds", "ops_per_sec", "p50_us",
    "p99_us",     "max_us",  "user_ms", "sys_ms", "minflt",  "vcsw",        "ivcsw"};
} // namespace

std::string Outcome::status() const {
    switch (kind_) {
    case Kind::ok:
        return "ok";
    case Kind::stopped:
        return "stopped";
    default:
        return "unsupported: " + why_;
    }
}

Table experiment_table(const std::vector<std::string>& own_columns) {
    Table t;
    t.columns = kSharedColumns;
    t.columns.insert(t.columns.end(), own_columns.begin(), own_columns.end());
    return t;
}

Value ratio(double numerator, double denominator) {
    return denominator > 0 ? Value::real(numerator / denominator) : Value::null();
}

void add_row(Table& t, const SharedMeasures& m, std::vector<Value> own) {
    if (kSharedColumns.size() + own.size() != t.columns.size())
        throw std::logic_error(
            "a " + m.experiment + " row has " + std::to_string(own.size()) + " own values for " +
            std::to_string(t.columns.size() - kSharedColumns.size()) + " own columns");
    const LatencyHistogram* h = m.latency && m.latency->count() ? m.latency : nullptr;
    const auto us = [&](double p) {
        return h ? Value::real(h->percentile(p) / 1e3) : Value::null();
    };
    std::vector<Value> row = {Value::text(m.experiment),
                              Value::text(m.variant),
                              Value::text(m.outcome.status()),
                              Value::integer(m.ops),
                              Value::real(m.seconds),
                              ratio(static_cast<double>(m.ops), m.seconds),
                              us(0.50),
                              us(0.99),
                              h ? Value::real(h->max() / 1e3) : Value::null(),
                              Value::real(m.usage.user_ms),
                              Value::real(m.usage.sys_ms),
                              Value::integer(m.usage.minflt),
                              Value::integer(m.usage.nvcsw),
                              Value::integer(m.usage.nivcsw)};
    for (auto& v : own)
        row.push_back(std::move(v));
    t.rows.push_back(std::move(row));
}

} // namespace uringprobe
