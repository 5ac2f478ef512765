// uringprobe_rings(): the ring-per-backend fork experiment, in this backend.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/rings_experiment.hpp"

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_rings);
Datum uringprobe_rings(PG_FUNCTION_ARGS);
}

Datum uringprobe_rings(PG_FUNCTION_ARGS) {
    for (int i = 0; i < 5; ++i)
        if (PG_ARGISNULL(i))
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("uringprobe_rings: arguments must not be NULL")));
    const int rings = PG_GETARG_INT32(0);
    const int depth = PG_GETARG_INT32(1);
    const char* mode = text_to_cstring(PG_GETARG_TEXT_PP(2));
    const bool dontfork = PG_GETARG_BOOL(3);
    const int forks = PG_GETARG_INT32(4);

    return uringprobe::pg::run_experiment(fcinfo, [&](bool& stopped) {
        uringprobe::RingsParams p;
        p.rings = rings;
        p.depth = depth;
        uringprobe::set_ring_modes(p, mode);
        p.dontfork = dontfork;
        p.forks = forks;
        uringprobe::RingsCaps caps;
        caps.max_rings = uringprobe::pg::max_rings_setting;
        caps.max_forks = uringprobe::pg::max_forks_setting;
        uringprobe::validate(p, caps);
        const uringprobe::RingsResult r = uringprobe::run_rings(p, uringprobe::pg::stop_requested);
        stopped = r.outcome.is_stopped();
        return uringprobe::rings_table(r);
    });
}
