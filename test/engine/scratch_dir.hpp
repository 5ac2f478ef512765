// A private temporary directory for one test, removed with what it holds.
#pragma once

#include <cstdlib>
#include <dirent.h>
#include <stdexcept>
#include <string>
#include <unistd.h>

class TempDir {
public:
    TempDir() {
        char tmpl[] = "/tmp/uringprobe-engine-test.XXXXXX";
        if (!mkdtemp(tmpl))
            throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    // Entries of the directory, "." and ".." aside.
    int entries() const;

private:
    std::string path_;
};

// Entries of directory `path`, "." and ".." aside; -1 when it cannot be read.
inline int dir_entries(const std::string& path) {
    DIR* d = opendir(path.c_str());
    if (!d)
        return -1;
    int n = 0;
    while (dirent* e = readdir(d))
        n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    closedir(d);
    return n;
}

inline int TempDir::entries() const {
    return dir_entries(path_);
}
