// uringprobe_advise(): the facts counted, the measurements run under the
// budget, then one rule per row (advise_rules.cpp).
#include "advise/advise.hpp"

#include "advise/advise_budget.hpp"
#include "advise/advise_measure.hpp"
#include "advise/advise_rules.hpp"
#include "contract/clock.hpp"
#include "contract/error.hpp"
#include "contract/number_text.hpp"
#include "os/system_info.hpp"
#include "uring/io_uring_caps.hpp"
#include "uring/ring.hpp"

#include <memory>
#include <utility>

namespace uringprobe {

namespace {

bool accepts(const IoUringCaps& caps, const std::string& name) {
    for (const auto& f : caps.setup_flags)
        if (f.name == name)
            return f.ok;
    return false;
}

// What is counted, not measured: the server's settings, the kernel, this
// process's limits and the rings PostgreSQL 18 would create here.
AdviseContext count_facts(const AdviseRequest& req, const IoUringCaps& caps) {
    AdviseContext c;
    c.process = req.process;
    c.server = req.server;
    c.file_extend_method = req.file_extend_method;
    c.concurrency = req.concurrency;
    c.depth = ring_entries(static_cast<unsigned>(req.server.settings.io_max_concurrency));
    c.limits = current_limits();
    c.plan = plan_pg18_rings(req.server.settings, caps, c.limits);
    c.ring_ok = caps.ring_ok;
    c.ring_err = caps.ring_err;
    c.no_mmap_accepted = accepts(caps, "NO_MMAP");
    c.defer_taskrun_accepted = accepts(caps, "DEFER_TASKRUN");
    c.memlock = caps.memlock;
    c.memlock_detail = caps.memlock_detail;
    c.kernel_release = kernel_release();
    c.io_uring_disabled = read_first_line("/proc/sys/kernel/io_uring_disabled");
    c.refusal = refusal_facts();
    return c;
}

// One measurement of kind M per filesystem, whatever tablespaces share it;
// for each target, its measurement or why it has none.
template <class M> struct PerFilesystem {
    std::vector<std::unique_ptr<M>> filesystems;
    std::vector<M*> of_target;
    std::vector<std::string> why_not;
};

// Where `wanted` (a row needs it on this server) and the caller may write,
// a measurement by make(target, dir, fs, dev) for each filesystem.
template <class M, class Make>
PerFilesystem<M> plan_per_filesystem(const AdviseRequest& req, bool wanted, Make make) {
    PerFilesystem<M> x;
    x.of_target.assign(req.targets.size(), nullptr);
    x.why_not.resize(req.targets.size());
    for (size_t i = 0; i < req.targets.size(); ++i) {
        const AdviseTarget& t = req.targets[i];
        if (!t.unavailable.empty()) {
            x.why_not[i] = t.unavailable;
            continue;
        }
        if (!wanted)
            continue;
        if (!req.cannot_write.empty()) {
            x.why_not[i] = req.cannot_write;
            continue;
        }
        dev_t dev = 0;
        const std::string dir = resolve_target(t, &x.why_not[i], &dev);
        if (dir.empty())
            continue;
        for (auto& f : x.filesystems)
            if (f->dev() == dev)
                x.of_target[i] = f.get();
        if (!x.of_target[i]) {
            x.filesystems.push_back(make(t, dir, filesystem_type(dir), dev));
            x.of_target[i] = x.filesystems.back().get();
        }
    }
    return x;
}

PerFilesystem<ExtendMeasurement> plan_extension(const AdviseRequest& req, const AdviseContext& c,
                                                const std::function<bool()>& should_stop) {
    auto x = plan_per_filesystem<ExtendMeasurement>(
        req, c.extends_by_rule(),
        [&](const AdviseTarget&, const std::string& dir, const std::string& fs, dev_t dev) {
            return std::make_unique<ExtendMeasurement>(c, dir, fs, dev, req.caps, should_stop);
        });
    for (ExtendMeasurement* m : x.of_target)
        if (m)
            m->add_tablespace();
    return x;
}

// The read depths of each filesystem a tablespace is on (its first
// tablespace names it).
// Each depth read as the server reads ahead: before 18 (and under
// io_method sync) a posix_fadvise distance, which keeps fewer reads at
// the device than as many in flight; under worker, queued for its
// io_workers threads; under io_uring, in flight.
// On PostgreSQL 18, io_workers beside them: `concurrency` sessions, each
// as deep as a backend's random reads go (effective_io_concurrency, within
// what it may pin).
PerFilesystem<DepthCurveMeasurement> plan_depths(const AdviseRequest& req, const AdviseContext& c,
                                                 const std::function<bool()>& should_stop) {
    WorkersCurvePlan workers;
    workers.wanted = c.pg18();
    workers.sessions = req.concurrency;
    const Pg18Settings& set = req.server.settings;
    const int pins = pg18_read_depth(set).pin_limit;
    workers.depth = std::max(1, pins > 0 ? std::min(set.effective_io_concurrency, pins)
                                         : set.effective_io_concurrency);
    workers.current = set.io_workers;
    const bool advised = !c.pg18() || c.server.io_method == "sync";
    return plan_per_filesystem<DepthCurveMeasurement>(
        req, true,
        [&](const AdviseTarget& t, const std::string& dir, const std::string& fs, dev_t dev) {
            return std::make_unique<DepthCurveMeasurement>(
                t.tablespace, dir, fs, dev, req.caps, workers, advised,
                c.server.io_method == "worker" ? set.io_workers : 0, should_stop);
        });
}

// A target's summary from its plan: the measurement's, or why there is none.
template <class Summary, class M> Summary summary_of(const PerFilesystem<M>& x, size_t i) {
    Summary s;
    if (M* m = x.of_target[i])
        s = m->summary();
    if (!x.why_not[i].empty())
        s.not_measured = x.why_not[i];
    return s;
}

// Cold reads on PostgreSQL 18, one measurement per filesystem (its first
// tablespace names it), where the caller may write scratch files.
struct ReadsPlan {
    std::vector<std::unique_ptr<ReadsMeasurement>> filesystems;
    std::string why_not; // why none is measured
};

ReadsPlan plan_reads(const AdviseRequest& req, const AdviseContext& c,
                     const std::function<bool()>& should_stop) {
    ReadsPlan x;
    if (!c.pg18())
        return x;
    if (!req.cannot_write.empty()) {
        x.why_not = req.cannot_write;
        return x;
    }
    auto per_fs = plan_per_filesystem<ReadsMeasurement>(
        req, true,
        [&](const AdviseTarget& t, const std::string& dir, const std::string& fs, dev_t dev) {
            return std::make_unique<ReadsMeasurement>(c, t.tablespace, dir, fs, dev, req.caps,
                                                      should_stop);
        });
    x.filesystems = std::move(per_fs.filesystems);
    for (const std::string& why : per_fs.why_not)
        if (!why.empty())
            x.why_not = why; // the last target's that has one
    if (x.why_not.empty() && x.filesystems.empty())
        x.why_not = "no tablespace to read in";
    return x;
}

// Of the filesystems' cold reads, the slowest device's (the least MB/s
// read sync): where what io_uring buys shows.
ReadsSummary slowest_reads(const ReadsPlan& x) {
    ReadsSummary out;
    out.not_measured = x.why_not;
    bool have = false;
    for (const auto& f : x.filesystems) {
        ReadsSummary s = f->summary();
        if (!s.not_measured.empty()) {
            if (!have)
                out = s;
            continue;
        }
        if (!have || s.sync_mbps.median < out.sync_mbps.median)
            out = s;
        have = true;
    }
    return out;
}

// Of the filesystems' summaries (summary(m) of each measurement), the one
// a server-wide setting is decided on: the one that wants the most of it
// (want(s): the device that waits longest wants the most workers, the
// largest reads); not_measured where none was.
template <class Summary, class M, class Of, class Want>
Summary neediest(const PerFilesystem<M>& x, Of summary, Want want) {
    Summary out;
    out.not_measured = "no tablespace to read in";
    int most = -1;
    for (const auto& f : x.filesystems) {
        Summary s = summary(*f);
        if (!s.not_measured.empty()) {
            if (most < 0)
                out = s;
            continue;
        }
        if (want(s) > most) {
            most = want(s);
            out = s;
        }
    }
    if (x.filesystems.empty())
        for (const std::string& why : x.why_not)
            if (!why.empty())
                out.not_measured = why;
    return out;
}

PerFilesystem<SequentialReadsMeasurement>
plan_sequential(const AdviseRequest& req, const AdviseContext& c,
                const std::function<bool()>& should_stop) {
    return plan_per_filesystem<SequentialReadsMeasurement>(
        req, true,
        [&](const AdviseTarget& t, const std::string& dir, const std::string& fs, dev_t dev) {
            return std::make_unique<SequentialReadsMeasurement>(c, t.tablespace, dir, fs, dev,
                                                                req.caps, should_stop);
        });
}

BudgetSummary budget_summary(const AdviseRequest& req, double spent,
                             const std::vector<Measurement*>& order) {
    BudgetSummary b;
    b.spent = spent;
    b.budget = req.budget_seconds;
    b.note = req.budget_note;
    b.deadline = req.deadline_seconds;
    for (const Measurement* m : order)
        b.parts.push_back(
            {m->account(), m->rounds, m->budget_cut, !m->failed.empty(), m->estimate()});
    return b;
}

} // namespace

const ParamTable<AdviseRequest>& advise_params() {
    using R = AdviseRequest;
    static const ParamTable<R> table = {
        {seconds_param("budget", 20, "time for all runs, more than 0")
             .capped_by(kMaxAdviseSeconds.name),
         [](R& r, const ParamValue& v) { r.budget_seconds = v.seconds; }, nullptr},
        number_row<R, &R::concurrency>(
            integer_param("concurrency", 4, 1, 64, "sessions extending one relation at once")),
    };
    return table;
}

namespace {
// A tablespace's directory given by its path: its files go there.
AdviseTarget target_in(const std::string& dir) {
    return {dir, dir, ""};
}
} // namespace

AdviseRequest::AdviseRequest() {
    set_defaults(advise_params(), *this);
}

const ParamTable<AdviseRequest>& advise_cli_params() {
    using R = AdviseRequest;
    static const ParamTable<R> table = {
        {integer_param("server_version", 18, 15, 99, "PostgreSQL major version").cli_only(),
         [](R& r, const ParamValue& v) { r.server.version_num = static_cast<int>(v.i) * 10000; },
         [](const R& r) { return static_cast<long long>(r.server.version_num / 10000); }},
        {text_param("file_extend_method", "'posix_fallocate'", "posix_fallocate|write_zeros",
                    "its setting (PostgreSQL 18 and later)")
             .cli_only(),
         [](R& r, const ParamValue& v) {
             if (v.s != "posix_fallocate" && v.s != "write_zeros")
                 throw InvalidArgument("file_extend_method must be posix_fallocate or "
                                       "write_zeros, got '" +
                                       v.s + "'");
             r.file_extend_method = v.s;
         },
         nullptr},
        io_method_row<R>(),
        data_directory_row<R>("the data directory, or where it will be (must exist)"),
        dir_list_row<R, &R::targets, target_in>("tablespace", "a tablespace's directory"),
    };
    return table;
}

void validate(const AdviseRequest& req) {
    if (!(req.budget_seconds > 0))
        throw InvalidArgument("budget must be positive, got " + fixed(req.budget_seconds, 3) +
                              " s");
    if (req.budget_seconds > req.max_budget_seconds)
        throw InvalidArgument(
            "budget " + fixed(req.budget_seconds, 0) + " s exceeds " +
            (req.budget_cap_name.empty() ? std::string("the cap") : req.budget_cap_name) + " (" +
            fixed(req.max_budget_seconds, 0) + " s)");
    check_ranges(advise_params(), req, {});
}

namespace {

// Every measurement planned for one call.
struct Plans {
    std::unique_ptr<ForkCostMeasurement> fork;
    PerFilesystem<ExtendMeasurement> extension;
    ReadsPlan reads;
    PerFilesystem<DepthCurveMeasurement> depths;
    PerFilesystem<SequentialReadsMeasurement> sequential;
    std::vector<Measurement*> order; // the order rounds are given in
};

Plans plan_all(const AdviseRequest& req, const AdviseContext& c, const IoUringCaps& caps,
               const std::function<bool()>& should_stop) {
    Plans p;
    if (c.ring_ok) {
        p.fork = std::make_unique<ForkCostMeasurement>(c, caps, req.caps, should_stop);
        p.fork->measurement().first = true; // io_method and the ring layout
        p.order.push_back(&p.fork->measurement());
    }
    p.extension = plan_extension(req, c, should_stop);
    p.reads = plan_reads(req, c, should_stop);
    p.depths = plan_depths(req, c, should_stop);
    p.sequential = plan_sequential(req, c, should_stop);
    for (auto& f : p.extension.filesystems)
        p.order.push_back(&f->measurement());
    for (auto& f : p.reads.filesystems) {
        f->measurement().first = true; // io_method
        p.order.push_back(&f->measurement());
    }
    for (auto& f : p.depths.filesystems)
        p.order.push_back(&f->measurement());
    for (auto& f : p.sequential.filesystems)
        p.order.push_back(&f->measurement());
    return p;
}

// The rows of the read settings: each tablespace's depths, then (18) the
// workers and read sizes decided on the filesystem that wants the most,
// then each filesystem's device's readahead.
void read_setting_rows(const AdviseRequest& req, const AdviseContext& c, const Plans& p,
                       std::vector<AdviceRow>& rows) {
    const Pg18Settings& set = req.server.settings;
    for (size_t i = 0; i < req.targets.size(); ++i) {
        const AdviseTarget& t = req.targets[i];
        const DepthCurveSummary s = summary_of<DepthCurveSummary>(p.depths, i);
        // the tablespace's own value, else the server's
        const std::pair<const char*, int> depth_settings[] = {
            {"effective_io_concurrency", t.effective_io_concurrency >= 0
                                             ? t.effective_io_concurrency
                                             : set.effective_io_concurrency},
            {"maintenance_io_concurrency", t.maintenance_io_concurrency >= 0
                                               ? t.maintenance_io_concurrency
                                               : set.maintenance_io_concurrency}};
        for (const auto& [setting, current] : depth_settings)
            rows.push_back(io_concurrency_advice(c, setting, t.tablespace, current, s));
    }
    if (c.pg18()) {
        rows.push_back(io_workers_advice(
            c, neediest<WorkersCurveSummary>(
                   p.depths, [](const DepthCurveMeasurement& m) { return m.workers_summary(); },
                   [&](const WorkersCurveSummary& s) {
                       return judge_workers(s, set.io_workers).enough;
                   })));
        const AdviceRow combine = io_combine_limit_advice(
            c, neediest<SequentialReadsSummary>(
                   p.sequential, [](const SequentialReadsMeasurement& m) { return m.summary(); },
                   [&](const SequentialReadsSummary& s) {
                       return judge_combine(s, set.io_combine_limit * 8).enough_kb;
                   }));
        rows.push_back(combine);
        rows.push_back(io_max_combine_limit_advice(c, combine));
    }
    for (const auto& f : p.sequential.filesystems)
        rows.push_back(read_ahead_kb_advice(c, f->summary()));
}

} // namespace

AdviseResult advise(const AdviseRequest& req, const std::function<bool()>& should_stop) {
    validate(req);
    const std::int64_t start = now_ns();
    auto elapsed = [start] { return (now_ns() - start) / 1e9; };
    AdviseResult res;
    validate(req.server.settings);
    const IoUringCaps caps =
        probe_io_uring(ring_entries(static_cast<unsigned>(req.server.settings.io_max_concurrency)));
    const AdviseContext c = count_facts(req, caps);
    // the measurements' own stop: the caller's, or the deadline passed
    const std::function<bool()> stop_or_deadline = [&] {
        return (should_stop && should_stop()) ||
               (req.deadline_seconds > 0 && elapsed() >= req.deadline_seconds);
    };
    Plans p = plan_all(req, c, caps, stop_or_deadline);
    if (!run_within_budget(p.order, req.budget_seconds, elapsed, should_stop,
                           req.deadline_seconds)) {
        res.outcome = Outcome::stopped();
        res.seconds = elapsed();
        return res;
    }

    ForkCostSummary fork_cost;
    if (p.fork)
        fork_cost = p.fork->summary();
    else
        fork_cost.not_measured = "this process cannot create a ring";
    res.rows.push_back(io_method_advice(c, fork_cost, slowest_reads(p.reads)));
    res.rows.push_back(ring_layout_advice(c, fork_cost));
    res.rows.push_back(io_uring_access_advice(c));
    for (size_t i = 0; i < req.targets.size(); ++i)
        res.rows.push_back(file_extend_method_advice(c, req.targets[i].tablespace,
                                                     summary_of<ExtendSummary>(p.extension, i)));
    read_setting_rows(req, c, p, res.rows);
    defer_depths_to_io_method(res.rows.front(), res.rows);
    res.rows.push_back(ulimit_n_advice(c));
    res.rows.push_back(ulimit_l_advice(c));
    res.seconds = elapsed();
    res.rows.push_back(budget_advice(budget_summary(req, res.seconds, p.order)));
    return res;
}

std::vector<Column> advise_columns() {
    return {
        text_column("topic"),         text_column("setting"),         text_column("scope"),
        text_column("scope_name"),    text_column("action"),          text_column("value"),
        text_column("current"),       bigint_column("needs_version"), text_column("confidence"),
        text_column("decided_by"),    text_column("measured_in"),     text_column("ratio_of"),
        text_column("compared_with"), real_column("ratio"),           real_column("ratio_lo"),
        real_column("ratio_hi"),      real_column("margin"),          text_column("not_measured"),
        text_column("advice"),        text_column("evidence"),        text_column("cost")};
}

Table advise_table(const AdviseResult& r) {
    Table t{advise_columns(), {}};
    auto real_or_null = [](const Decision& d, double v) {
        return d.has_ratio ? Value::real(v) : Value::null();
    };
    for (const auto& row : r.rows) {
        const Decision& d = row.decided_by;
        t.add({Value::text(row.topic),
               Value::text(row.setting),
               Value::text(row.scope),
               Value::text(row.scope_name),
               Value::text(row.action),
               Value::text(row.value),
               Value::text(row.current),
               row.needs_version ? Value::integer(row.needs_version) : Value::null(),
               Value::text(row.confidence),
               Value::text(d.by),
               Value::text(d.measured_in),
               Value::text(d.ratio_of),
               Value::text(d.compared_with),
               real_or_null(d, d.ratio),
               real_or_null(d, d.lo),
               real_or_null(d, d.hi),
               real_or_null(d, d.margin),
               Value::text(row.not_measured),
               Value::text(row.advice),
               Value::text(row.evidence),
               Value::text(row.cost)});
    }
    return t;
}

} // namespace uringprobe
