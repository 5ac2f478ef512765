// What asynchronous reads buy on a device that makes you wait: the same
// bytes of a file read by one submitter in `block_kb` pieces (PostgreSQL's
// io_combine_limit), in order or in a seeded random order of those pieces,
// five ways:
//   sync          pread, one at a time (io_method = sync without advice);
//   sync_fadvise  pread, with POSIX_FADV_WILLNEED issued `distance` pieces
//                 ahead (what io_method = sync does for reads it can
//                 predict: the kernel reads ahead for it);
//   sync_sequential  pread, one at a time, the file advised
//                 POSIX_FADV_SEQUENTIAL (the kernel's readahead window
//                 twice the device's read_ahead_kb: what raising it buys
//                 reads that lean on the kernel's readahead);
//   io_uring      `in_flight` reads kept in flight on this thread's ring,
//                 one re-submitted per completion (io_method = io_uring);
//   workers       `in_flight` reads queued for `workers` threads doing
//                 pread, each completion handed back to the submitter
//                 (io_method = worker: a model of its hand-offs, counted),
//                 each worker through file descriptions of its own, as
//                 each io worker opens the files itself (the kernel's
//                 readahead state is per file description).
// Buffered reads start from what `cache` says: cold (the file's pages
// dropped with POSIX_FADV_DONTNEED, checked with mincore) or warm (read
// once first); direct reads (O_DIRECT) go to the device whatever is cached.
// The file is a scratch file written first, or files given to read (a
// relation's segment files, opened read-only).
#pragma once

#include "contract/param_table.hpp"
#include "contract/result.hpp"
#include "contract/usage.hpp"

#include <functional>
#include <string>
#include <vector>

namespace uringprobe {

enum class ReadMethod { sync, sync_fadvise, sync_sequential, io_uring, workers };
enum class ReadPattern { sequential, random };
enum class CacheState { cold, warm };

struct ReadsParams {
    ReadsParams(); // every parameter at its default
    ReadMethod method;
    ReadPattern pattern;
    int block_kb;  // bytes per read
    int in_flight; // io_uring, workers: reads kept in flight
    int distance;  // sync_fadvise: pieces advised ahead
    int workers;   // workers: threads
    bool direct;   // O_DIRECT
    CacheState cache;
    int file_mb; // the scratch file's size
    int passes;  // times the file is read
    long long seed;
    long long rel = 0;              // SQL: the relation whose files are read (0: none)
    std::vector<std::string> files; // read these (read-only) instead of a scratch file
    std::string source;             // what `files` are, for the row ("": the paths)
    std::string dir;                // the scratch directory
    bool dir_given = false;         // SQL: false for NULL (the first allowed directory)
};

// method, pattern, block_kb, in_flight, distance, workers, direct, cache,
// file_mb, passes, seed, rel (SQL), dir (SQL) or --file (the CLI).
const ParamTable<ReadsParams>& reads_params();

ReadMethod parse_read_method(const std::string& name);
ReadPattern parse_read_pattern(const std::string& name);
CacheState parse_cache_state(const std::string& name);
const char* read_method_name(ReadMethod m);
void validate(const ReadsParams& p, const Caps& caps);

struct ReadsResult {
    ReadsParams params;
    Outcome outcome = Outcome::ok();
    std::string source; // the file(s) read
    long long file_bytes = 0;
    long reads = 0;
    long long bytes = 0; // read
    double seconds = 0;
    LatencyHistogram latency;  // per read: issued to completion seen
    double mean_in_flight = 0; // at each completion, this one included
    int max_in_flight = 0;
    long enters = -1;          // io_uring_enter calls (io_uring; -1 otherwise)
    long read_calls = 0;       // pread calls (sync, sync_fadvise, workers)
    long fadvise_calls = 0;    // POSIX_FADV_WILLNEED calls
    long worker_wakeups = -1;  // workers: a sleeping worker woken (-1 otherwise)
    long submitter_waits = -1; // workers: the submitter slept for a completion
    UsageDelta usage;          // this process
    UsageDelta submitter;      // the submitting thread
    double helpers_cpu_ms = 0; // the worker threads, or io_uring's io-wq workers
    long iowq_workers = 0;
    long long pages = 0;            // the file's pages
    long long resident_before = -1; // of those, in the page cache as reading began
};

// `bytes` of data (no holes) written to `fd` and synced: the file the
// reads read, where they make it. Stops early when `stop` says so.
class StopPoll;
void write_scratch(int fd, long long bytes, StopPoll& stop);

// `allowed` lists the scratch directories. Threads, rings and the scratch
// file are gone when this returns or throws.
ReadsResult run_reads(const ReadsParams& p, const std::vector<std::string>& allowed,
                      const std::function<bool()>& should_stop);

// The columns of its rows, as reads_table() fills them.
std::vector<Column> reads_columns();
Table reads_table(const ReadsResult& r);

// The experiment in this process by itself, its parameters as given
// (`uringprobe-cli reads`): validated against the parameters' own ranges,
// in the scratch directory given or on the files given,
// stopped by should_stop().
Table run_reads_in_process(const GivenParams& given, const std::function<bool()>& should_stop);

} // namespace uringprobe
