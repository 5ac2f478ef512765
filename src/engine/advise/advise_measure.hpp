// The measurements of uringprobe_advise(), round by round under the
// budget scheduler, each summarized for the rules when the rounds are over:
//   ForkCostMeasurement  fork() + exit() with the server's rings in either
//                        layout against a bare fork (the rings experiment)
//   ExtendMeasurement    posix_fallocate against write_zeros growing one
//                        file from several sessions on one filesystem, and
//                        the alternation without 82a4edab (the extend
//                        experiment)
//   ReadsMeasurement     cold reads of one filesystem's device: sync,
//                        worker threads, io_uring (the reads experiment)
#pragma once

#include "advise/advise.hpp"
#include "advise/advise_budget.hpp"
#include "advise/advise_summaries.hpp"
#include "experiments/reads_experiment.hpp"

#include <functional>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace uringprobe {

// fork() + exit() with the rings, per variant and round: four blocks of 25,
// so that the order the variants take turns in (the one after a teardown
// of many rings shares the CPUs with the kernel freeing them) averages out.
constexpr int kForksPerRound = 100;
// Each extension run grows one shared file by this much (or by
// uringprobe.max_scratch_mb where that is less).
constexpr int kExtendMb = 64;

class ForkCostMeasurement {
public:
    // At the server's ring count (c.plan.rings), fewer where this process's
    // limits or `limits` (uringprobe.max_rings, max_memory_mb) allow fewer
    // (then scaled); kForksPerRound forks, or uringprobe.max_forks.
    ForkCostMeasurement(const AdviseContext& c, const IoUringCaps& caps, const Caps& limits,
                        const std::function<bool()>& should_stop);
    ForkCostMeasurement(const ForkCostMeasurement&) = delete;
    ForkCostMeasurement& operator=(const ForkCostMeasurement&) = delete;

    Measurement& measurement() { return m_; }
    ForkCostSummary summary() const;

private:
    // Fewer rings than the server's where the caps or this process's
    // limits allow fewer; why_fewer_ says which.
    void fit_rings(const IoUringCaps& caps);
    bool round();
    // The fewest rings a fork cost may be scaled from.
    int fewest_rings() const;
    // Halves the rings after the set-up failed for lack of `err` (ENOMEM
    // or EMFILE); 0 when none are left to try.
    void fewer_rings(int err);

    const AdviseContext& c_;
    const std::function<bool()>& should_stop_;
    Caps limits_;
    Measurement m_;
    int rings_ = 0;
    int forks_ = kForksPerRound;
    std::string forks_capped_; // why fewer forks a round
    bool scaled_ = false;
    std::string why_fewer_;
    bool no_mmap_ = false; // the one-region variant is measured too
    std::string no_mmap_refused_;
    std::vector<double> base_us_, mmap_us_, region_us_; // fork + exit p50 per round
    std::vector<double> mmap_added_, region_added_;     // us per connection, scaled
    std::vector<double> mmap_share_, region_share_;     // added / bare fork
};

class ExtendMeasurement {
public:
    // In `dir` (resolved, on filesystem `fs`), sessions and sizing from c,
    // within `limits` (a run beyond one is not measured, naming it).
    ExtendMeasurement(const AdviseContext& c, std::string dir, std::string fs, dev_t dev,
                      const Caps& limits, const std::function<bool()>& should_stop);
    ExtendMeasurement(const ExtendMeasurement&) = delete;
    ExtendMeasurement& operator=(const ExtendMeasurement&) = delete;

    Measurement& measurement() { return m_; }
    dev_t dev() const { return dev_; }
    void add_tablespace() { ++tablespaces_; }
    ExtendSummary summary() const;

private:
    struct Variant {
        ExtendStrategy strategy;
        ExtendSizing sizing;
        std::vector<double> seconds;
        std::vector<double> us_per_extension;
        long switches = 0;
    };
    bool round(int round);

    const AdviseContext& c_;
    const std::function<bool()>& should_stop_;
    std::string dir_, fs_;
    dev_t dev_;
    Caps limits_;
    int mb_;
    int tablespaces_ = 0;
    std::vector<Variant> variants_; // posix_fallocate, write_zeros[, alternation]
    std::vector<double> fallocate_over_zeros_, alternation_over_fixed_; // per round
    Measurement m_;
};

// A scratch file written once and read cold at each depth, count or size,
// removed with the measurement that wrote it.
struct ReadsFile;

// Each read run reads a file of this many MB (or uringprobe.max_scratch_mb).
constexpr int kReadsMb = 32;

int read_block_kb(int io_combine_limit);

class ReadsMeasurement {
public:
    // In `dir` (resolved, on filesystem `fs`), for `tablespace`: workers
    // from the server's io_workers; reads of its io_combine_limit, as
    // many in flight as its read streams may keep (pg18_read_depth), or
    // as `limits` allow (uringprobe.max_read_in_flight, max_memory_mb).
    ReadsMeasurement(const AdviseContext& c, std::string tablespace, std::string dir,
                     std::string fs, dev_t dev, const Caps& limits,
                     const std::function<bool()>& should_stop);
    ReadsMeasurement(const ReadsMeasurement&) = delete;
    ReadsMeasurement& operator=(const ReadsMeasurement&) = delete;

    Measurement& measurement() { return m_; }
    dev_t dev() const { return dev_; }
    ReadsSummary summary() const;

private:
    bool round(int round);

    const std::function<bool()>& should_stop_;
    std::string tablespace_, dir_, fs_;
    dev_t dev_;
    Caps limits_;
    int mb_, workers_;
    ReadDepth depth_;
    int in_flight_, block_kb_;
    std::string capped_; // which cap kept in_flight below depth_
    std::vector<double> sync_, workers_mbps_, uring_;
    std::vector<double> uring_over_workers_, uring_over_sync_;
    Measurement m_;
};

// The depth curve reads a file of this many MB (or uringprobe.max_scratch_mb)
// at depths 1, 2, 4 ... up to kDeepestRead (or uringprobe.max_read_in_flight).
constexpr int kDepthCurveMb = 4;
constexpr int kDeepestRead = 128;

// io_workers measured beside the depths (PostgreSQL 18): `sessions`
// sessions each keeping `depth` reads in flight, through 1, 2, 3 ... 32
// workers (PostgreSQL's most) and the server's `current` count.
struct WorkersCurvePlan {
    bool wanted = false;
    int sessions = 4, depth = 16, current = 3;
};
// The worker counts measured for `plan`: never more than the reads in
// flight (beyond, a worker has nothing to do) but the current count.
std::vector<int> worker_counts(const WorkersCurvePlan& plan);

class DepthCurveMeasurement {
public:
    // In `dir` (resolved, on filesystem `fs`), for `tablespace`, within
    // `limits`. The file is written at the first round and removed with
    // this object. Each depth read as the server reads ahead: `advised`
    // (before 18, or io_method sync), buffered reads one at a time with
    // POSIX_FADV_WILLNEED issued that many reads ahead; `through_workers`
    // > 0 (io_method worker), that many in flight queued for that many
    // worker threads; else io_uring keeping that many in flight. Direct
    // but where advised.
    DepthCurveMeasurement(std::string tablespace, std::string dir, std::string fs, dev_t dev,
                          const Caps& limits, const WorkersCurvePlan& workers, bool advised,
                          int through_workers, const std::function<bool()>& should_stop);
    DepthCurveMeasurement(const DepthCurveMeasurement&) = delete;
    DepthCurveMeasurement& operator=(const DepthCurveMeasurement&) = delete;
    ~DepthCurveMeasurement();

    Measurement& measurement() { return m_; }
    dev_t dev() const { return dev_; }
    DepthCurveSummary summary() const;
    // not_measured where the plan did not want it
    WorkersCurveSummary workers_summary() const;

private:
    bool round(int round);
    // One cold read of the file at `depth`: false when stopped.
    bool read_at(int depth, int round, double* mbps, double* p99_us);
    // The file read by the worker pool at each count: false when stopped.
    bool workers_round(int round);

    const std::function<bool()>& should_stop_;
    std::string tablespace_, dir_, fs_;
    dev_t dev_;
    Caps limits_;
    int mb_;
    bool direct_ = true;
    bool advised_ = false;
    int through_workers_ = 0;
    std::string capped_;
    std::vector<DepthPoint> points_;
    WorkersCurvePlan workers_plan_;
    int workers_depth_ = 1; // each session's depth, within the caps
    std::vector<WorkersPoint> workers_points_;
    std::vector<double> uring_at_demand_;
    std::unique_ptr<ReadsFile> file_; // once written
    Measurement m_;
};

// Sequential reads read a file of this many MB (or uringprobe.max_scratch_mb),
// io_combine_limit's sizes from kSmallestCombineKb to 1 MB.
constexpr int kSequentialMb = 16;
constexpr int kSmallestCombineKb = 32;

class SequentialReadsMeasurement {
public:
    // In `dir` (resolved, on filesystem `fs` of device `dev`), for
    // `tablespace`; on PostgreSQL 18 (c.pg18()) io_combine_limit's sizes
    // too, each as deep as c's settings let a read stream go at that size.
    SequentialReadsMeasurement(const AdviseContext& c, std::string tablespace, std::string dir,
                               std::string fs, dev_t dev, const Caps& limits,
                               const std::function<bool()>& should_stop);
    SequentialReadsMeasurement(const SequentialReadsMeasurement&) = delete;
    SequentialReadsMeasurement& operator=(const SequentialReadsMeasurement&) = delete;
    ~SequentialReadsMeasurement();

    Measurement& measurement() { return m_; }
    dev_t dev() const { return dev_; }
    SequentialReadsSummary summary() const;

private:
    bool round(int round);
    // One cold read of the file: false when stopped.
    bool read_once(ReadMethod method, int block_kb, int in_flight, double* mbps, double* p99_us);

    const std::function<bool()>& should_stop_;
    std::string tablespace_, dir_, fs_;
    dev_t dev_;
    Caps limits_;
    int mb_;
    std::vector<double> normal_, doubled_, doubled_over_normal_;
    std::vector<SizePoint> sizes_;
    std::unique_ptr<ReadsFile> file_; // once written
    Measurement m_;
};

// The directory scratch files go into: `t.dir` with its parent resolved
// (a tablespace's directory is reached through a symlink in pg_tblspc),
// created if missing where t.make_missing; "" and *why when it cannot be
// used.
std::string resolve_target(const AdviseTarget& t, std::string* why, dev_t* dev);

} // namespace uringprobe
