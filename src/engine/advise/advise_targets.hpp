// Where uringprobe_advise() may grow files to measure a tablespace's
// filesystem: only where a superuser allowed it.
#pragma once

#include "advise/advise.hpp"

#include <string>
#include <vector>

namespace uringprobe {

// A tablespace as the server lays it out.
struct TablespaceDirs {
    std::string name;
    std::string home;                  // its relation files: base, or pg_tblspc/<oid>/PG_<version>
    int effective_io_concurrency = -1; // its own (ALTER TABLESPACE ... SET), -1: none
    int maintenance_io_concurrency = -1;
};

// One target per tablespace, by the rule:
//  - named in `listed` (uringprobe.advise_tablespaces: names separated by
//    commas, or * for every one): its temporary-file directory, home's
//    pgsql_tmp;
//  - else the first directory of `scratch_dirs` (uringprobe.scratch_dirs)
//    on the filesystem that holds its home, never created;
//  - else none: the target is unavailable, saying why and which setting
//    would allow it.
std::vector<AdviseTarget> advise_targets(const std::vector<TablespaceDirs>& tablespaces,
                                         const std::string& listed,
                                         const std::string& scratch_dirs);

} // namespace uringprobe
