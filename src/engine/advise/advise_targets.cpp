#include "advise/advise_targets.hpp"

#include "io/scratch_file.hpp"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace uringprobe {

namespace {

bool is_listed(const std::vector<std::string>& listed, const std::string& name) {
    for (const auto& l : listed)
        if (l == "*" || l == name)
            return true;
    return false;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "none" : out;
}

} // namespace

std::vector<AdviseTarget> advise_targets(const std::vector<TablespaceDirs>& tablespaces,
                                         const std::string& listed_text,
                                         const std::string& scratch_text) {
    const std::vector<std::string> listed = split_dir_list(listed_text);
    const std::vector<std::string> scratch = split_dir_list(scratch_text);
    std::vector<AdviseTarget> out;
    for (const TablespaceDirs& t : tablespaces) {
        AdviseTarget target{t.name, t.home + "/" + kPgTempDirName, ""};
        target.effective_io_concurrency = t.effective_io_concurrency;
        target.maintenance_io_concurrency = t.maintenance_io_concurrency;
        if (is_listed(listed, t.name)) {
            out.push_back(target);
            continue;
        }
        const std::string not_listed =
            "'" + t.name + "' is not in uringprobe.advise_tablespaces (" + joined(listed) + ")";
        struct stat home {};
        if (::stat(t.home.c_str(), &home) != 0) {
            target.unavailable =
                not_listed + ", and its directory " + t.home + ": " + std::strerror(errno);
            out.push_back(target);
            continue;
        }
        target.dir.clear();
        for (const auto& dir : scratch) {
            struct stat st {};
            // (relative to nothing a superuser chose: skipped)
            if (dir[0] == '/' && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
                st.st_dev == home.st_dev) {
                target.dir = dir;
                target.make_missing = false;
                break;
            }
        }
        if (target.dir.empty())
            target.unavailable = not_listed + ", and no directory of uringprobe.scratch_dirs (" +
                                 joined(scratch) + ") is on its filesystem";
        out.push_back(target);
    }
    return out;
}

} // namespace uringprobe
