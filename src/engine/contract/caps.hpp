// The superuser's caps on what one call may take, each a setting of the
// server (uringprobe.*): its name, its default, the range the setting
// itself may take, and what it caps. The default is also the most a capped
// parameter allows where no server sets the cap (uringprobe-cli). The
// module defines the settings from these, the experiments' parameter tables
// cap their parameters by them, and advise sizes its runs within them.
#pragma once

namespace uringprobe {

struct CapSetting {
    const char* name;
    int default_value;
    int min;
    int max;
    const char* help;
};

inline constexpr CapSetting kMaxRings{
    "uringprobe.max_rings", 4096, 1, 65536,
    "Most io_uring rings one uringprobe_rings() call may create."};
inline constexpr CapSetting kMaxForks{"uringprobe.max_forks", 100000, 1, 10000000,
                                      "Most child processes one uringprobe_rings() call may fork."};
inline constexpr CapSetting kMaxScratchMb{
    "uringprobe.max_scratch_mb", 1024, 1, 1048576,
    "Most megabytes one uringprobe_extend() or uringprobe_reads() call may write."};
// Memory a call holds that PostgreSQL does not account for: ring memory
// (unswappable kernel memory, charged to the server's memory cgroup) and
// extend's page buffers. 256 MB: what a 4 GiB host gives up without harm.
inline constexpr CapSetting kMaxMemoryMb{
    "uringprobe.max_memory_mb", 256, 1, 1048576,
    "Most megabytes of ring memory or buffers one uringprobe call may hold."};
// Reads in flight: a ring's entries, or requests queued for threads. 256:
// four times what one PostgreSQL 18 backend may have in flight with
// io_max_concurrency chosen automatically (at most 64).
inline constexpr CapSetting kMaxReadInFlight{
    "uringprobe.max_read_in_flight", 256, 1, 4096,
    "Most reads one uringprobe_reads() call may keep in flight."};
inline constexpr CapSetting kMaxAdviseSeconds{
    "uringprobe.max_advise_seconds", 300, 1, 86400,
    "Longest budget one uringprobe_advise() call may take."};

// A cap's value in `caps` (name -> value), or its default where absent.
template <typename CapsMap> long long cap_value(const CapsMap& caps, const CapSetting& cap) {
    const auto it = caps.find(cap.name);
    return it != caps.end() ? it->second : cap.default_value;
}

} // namespace uringprobe
