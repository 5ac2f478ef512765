#include "io/scratch_file.hpp"
#include "os/dir.hpp"

#include "contract/error.hpp"
#include "os/process_snapshot.hpp"

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace uringprobe {

namespace {

const char kPrefix[] = "uringprobe-";
// In a directory named pgsql_tmp (a tablespace's temporary-file directory,
// where uringprobe_advise() measures), names begin as PostgreSQL's own
// temporary files do, so that its clean-up at start and after a crash
// removes a file a killed process left.
const char kPgTempPrefix[] = "pgsql_tmp.";
const char kSuffix[] = ".scratch";

std::string strip_trailing_slashes(std::string p) {
    while (p.size() > 1 && p.back() == '/')
        p.pop_back();
    return p;
}

// Start time of process `pid` in clock ticks since boot, or 0 when it
// cannot be read (no such process, or its /proc entry hidden).
std::uint64_t start_time_of(long pid) {
    try {
        return read_proc_stat("/proc/" + std::to_string(pid) + "/stat").start_ticks;
    } catch (const SysError&) {
        return 0;
    }
}

// Whether the process that created a scratch file still runs: its pid
// exists with the start time in the file's name. A pid that exists but
// whose /proc entry cannot be read (hidepid, another user's process)
// counts as running: a file is never taken from a live process.
bool creator_runs(long pid, std::uint64_t started) {
    if (const std::uint64_t t = start_time_of(pid))
        return t == started;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

} // namespace

std::vector<std::string> allowed_scratch_dirs(const std::string& list, bool dir_given,
                                              std::string& dir) {
    std::vector<std::string> allowed = split_dir_list(list);
    if (!dir_given && !allowed.empty())
        dir = allowed.front();
    return allowed;
}

std::string absolute_path(const std::string& path) {
    if (path.empty() || path[0] == '/')
        return path;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        throw SysError(errno, "getcwd");
    return std::string(cwd) + "/" + path;
}

std::string own_scratch_dir(const std::string& dir, bool needed, const std::string& missing) {
    if (needed && dir.empty())
        throw InvalidArgument(missing);
    return absolute_path(dir);
}

std::vector<std::string> split_dir_list(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto b = item.find_first_not_of(" \t");
        const auto e = item.find_last_not_of(" \t");
        if (b != std::string::npos)
            out.push_back(item.substr(b, e - b + 1));
    }
    return out;
}

ScratchDir::ScratchDir(const std::string& path, const std::vector<std::string>& allowed)
    : path_(strip_trailing_slashes(path)) {
    if (allowed.empty())
        throw InvalidArgument("no scratch directory is allowed: a superuser lists them in "
                              "uringprobe.scratch_dirs");
    if (path_.empty() || path_[0] != '/')
        throw InvalidArgument("dir must be an absolute path, got '" + path + "'");
    std::vector<std::string> parts;
    {
        std::stringstream in(path_.substr(1));
        std::string part;
        while (std::getline(in, part, '/')) {
            if (part.empty())
                continue;
            if (part == "." || part == "..")
                throw InvalidArgument("dir must not contain '.' or '..' components, got '" + path +
                                      "'");
            parts.push_back(part);
        }
    }
    bool listed = false;
    std::string names;
    for (const auto& a : allowed) {
        listed = listed || strip_trailing_slashes(a) == path_;
        names += (names.empty() ? "" : ", ") + a;
    }
    if (!listed)
        throw InvalidArgument("dir '" + path + "' is not an allowed scratch directory (" + names +
                              ")");
    // Walk from the root one component at a time, refusing symlinks, and
    // keep the last directory open: later a replaced path cannot redirect us.
    Fd cur = Fd::open("/", O_RDONLY | O_DIRECTORY, "open /");
    std::string walked;
    for (const auto& part : parts) {
        walked += "/" + part;
        const int next =
            ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            int err = errno;
            struct stat st {};
            // O_DIRECTORY reports a symlink as ENOTDIR: ELOOP, unless what
            // is there now is neither a directory nor a symlink (one that
            // was swapped away since counts as a symlink)
            if (err == ENOTDIR &&
                !(::fstatat(cur.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                  !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)))
                err = ELOOP;
            if (err == ELOOP)
                throw SysError(err, "open " + walked +
                                        " (scratch directories and their parents must be "
                                        "real directories, not symlinks)");
            throw SysError(err, "open " + walked);
        }
        cur = Fd(next);
    }
    fd_ = std::move(cur);
}

int ScratchDir::remove_stale_files() const {
    Dir d = Dir::open_fd(fd_.get(), path_);
    int removed = 0;
    while (dirent* e = d.next()) {
        long pid = 0;
        std::uint64_t started = 0;
        if (!parse_scratch_name(e->d_name, &pid, &started))
            continue;
        if (creator_runs(pid, started))
            continue;
        if (::unlinkat(fd_.get(), e->d_name, 0) == 0)
            ++removed;
    }
    return removed;
}

bool parse_scratch_name(const std::string& full_name, long* pid, std::uint64_t* start_time) {
    const size_t tlen = sizeof kPgTempPrefix - 1;
    const std::string name =
        full_name.compare(0, tlen, kPgTempPrefix) == 0 ? full_name.substr(tlen) : full_name;
    const size_t plen = sizeof kPrefix - 1;
    const size_t slen = sizeof kSuffix - 1;
    if (name.size() <= plen + slen || name.compare(0, plen, kPrefix) != 0 ||
        name.compare(name.size() - slen, slen, kSuffix) != 0)
        return false;
    long p = 0;
    unsigned long long t = 0;
    unsigned long long seq = 0;
    int used = 0;
    const std::string middle = name.substr(plen, name.size() - plen - slen);
    if (std::sscanf(middle.c_str(), "%ld-%llu-%llu%n", &p, &t, &seq, &used) != 3 ||
        static_cast<size_t>(used) != middle.size() || p <= 0)
        return false;
    *pid = p;
    *start_time = t;
    return true;
}

ScratchFile::ScratchFile(const ScratchDir& dir) : dir_fd_(dir.fd()) {
    static std::atomic<unsigned long long> seq{0};
    char name[128];
    const std::string& path = dir.path();
    const std::string last = path.substr(path.find_last_of('/') + 1);
    const bool pg_temp_dir = last == kPgTempDirName;
    std::snprintf(name, sizeof name, "%s%s%ld-%" PRIu64 "-%llu%s", pg_temp_dir ? kPgTempPrefix : "",
                  kPrefix, static_cast<long>(getpid()), start_time_of(getpid()), seq.fetch_add(1),
                  kSuffix);
    name_ = name;
    fd_ = Fd::openat(dir_fd_, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600,
                     "create " + dir.path() + "/" + name_);
}

ScratchFile::ScratchFile(ScratchFile&& other) noexcept
    : dir_fd_(other.dir_fd_), name_(std::move(other.name_)), fd_(std::move(other.fd_)) {
    other.name_.clear();
}

ScratchFile::~ScratchFile() {
    if (!name_.empty())
        ::unlinkat(dir_fd_, name_.c_str(), 0);
}

Fd ScratchFile::reopen(int flags) const {
    return Fd::openat(dir_fd_, name_.c_str(), flags | O_NOFOLLOW, 0, "open " + name_);
}

} // namespace uringprobe
