#include "contract/result.hpp"

#include <stdexcept>

namespace uringprobe {

namespace {
const std::vector<Column> kSharedColumns = {
    text_column("experiment"), text_column("variant"), text_column("status"),
    bigint_column("ops"),      real_column("seconds"), real_column("ops_per_sec"),
    real_column("p50_us"),     real_column("p99_us"),  real_column("max_us"),
    real_column("user_ms"),    real_column("sys_ms"),  bigint_column("minflt"),
    bigint_column("vcsw"),     bigint_column("ivcsw")};
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

std::vector<Column> experiment_columns(const std::vector<Column>& own) {
    std::vector<Column> all = kSharedColumns;
    all.insert(all.end(), own.begin(), own.end());
    return all;
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
    t.add(std::move(row));
}

} // namespace uringprobe
