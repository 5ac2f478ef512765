// uringprobe_rings(): the ring-per-backend fork experiment, in this backend.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/contract/caps.hpp"
#include "../engine/experiments/rings_experiment.hpp"

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_rings);
Datum uringprobe_rings(PG_FUNCTION_ARGS);
}

Datum uringprobe_rings(PG_FUNCTION_ARGS) {
    const long long max_rings = uringprobe::pg::max_rings_setting;
    const long long max_forks = uringprobe::pg::max_forks_setting;
    const long long max_memory_mb = uringprobe::pg::max_memory_mb_setting;
    return uringprobe::pg::run_experiment(
        fcinfo, "uringprobe_rings", uringprobe::rings_params, [&](uringprobe::RingsParams& p) {
            uringprobe::validate(p, {{uringprobe::kMaxRings.name, max_rings},
                                     {uringprobe::kMaxForks.name, max_forks},
                                     {uringprobe::kMaxMemoryMb.name, max_memory_mb}});
            const uringprobe::RingsResult r =
                uringprobe::run_rings(p, uringprobe::pg::stop_requested);
            return uringprobe::rings_table(r);
        });
}
