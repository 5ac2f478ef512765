// Scratch files for experiments that write: only in an allowed directory,
// reached without following symlinks, created exclusively, removed when
// their owner goes away, and swept up after a crash by the next user of
// the directory.
#pragma once

#include "os/fd.hpp"

#include <cstdint>
#include <fcntl.h>
#include <string>
#include <vector>

namespace uringprobe {

// The name of a tablespace's temporary-file directory (PostgreSQL's
// PG_TEMP_FILES_DIR), where uringprobe_advise() measures.
inline constexpr char kPgTempDirName[] = "pgsql_tmp";

// An open allowed directory. `path` must be absolute, free of "." and ".."
// components, equal to one of `allowed` (trailing slashes aside), and every
// component must be a real directory, not a symlink; throws InvalidArgument
// (not allowed, malformed) or SysError (missing, a symlink, no access).
class ScratchDir {
public:
    ScratchDir(const std::string& path, const std::vector<std::string>& allowed);
    int fd() const { return fd_.get(); }
    const std::string& path() const { return path_; }
    // Removes scratch files whose creating process is gone (crashed or
    // killed); returns how many.
    int remove_stale_files() const;

private:
    std::string path_;
    Fd fd_;
};

// The comma-separated list of a setting such as uringprobe.scratch_dirs,
// each entry trimmed; empty entries dropped.
std::vector<std::string> split_dir_list(const std::string& list);
// The directories a setting's list allows; where the caller gave no
// directory (`dir_given` false: SQL NULL), `dir` becomes the first of them.
std::vector<std::string> allowed_scratch_dirs(const std::string& list, bool dir_given,
                                              std::string& dir);

// `path` made absolute against the working directory (as a path given on
// a command line means it); "" stays "".
std::string absolute_path(const std::string& path);
// The scratch directory a process runs an experiment in by itself (the
// CLI: the one directory it may use), made absolute; InvalidArgument
// `missing` where the run needs one and none was given.
std::string own_scratch_dir(const std::string& dir, bool needed, const std::string& missing);

// A new file in a ScratchDir, named after this process so that a later
// sweep can tell whether its creator is still alive. Created with
// O_EXCL|O_NOFOLLOW, mode 0600; unlinked by the destructor. The ScratchDir
// must outlive it.
class ScratchFile {
public:
    explicit ScratchFile(const ScratchDir& dir);
    ScratchFile(ScratchFile&& other) noexcept;
    ScratchFile& operator=(ScratchFile&&) = delete;
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;
    ~ScratchFile();

    int fd() const { return fd_.get(); }
    const std::string& name() const { return name_; }
    // Another descriptor for the same file, as a second session would hold
    // (`flags`: O_RDONLY|O_DIRECT, say).
    Fd reopen(int flags = O_RDWR) const;

private:
    int dir_fd_;
    std::string name_;
    Fd fd_;
};

// Whether `name` is a scratch file name, and of which process.
bool parse_scratch_name(const std::string& name, long* pid, std::uint64_t* start_time);

} // namespace uringprobe
