// RAII owner of an anonymous memory mapping: movable, not copyable,
// unmapped on scope exit.
#pragma once

#include "contract/error.hpp"

#include <cerrno>
#include <cstddef>
#include <string>
#include <sys/mman.h>
#include <utility>

namespace uringprobe {

class Mapping {
public:
    // `bytes` of zeroed memory, MAP_SHARED (as PostgreSQL's shared memory,
    // inherited by forked children) or MAP_PRIVATE; throws SysError naming
    // `what`.
    enum class Sharing { shared, private_ };
    static Mapping anonymous(size_t bytes, Sharing sharing, const std::string& what) {
        void* p =
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   (sharing == Sharing::shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            throw SysError(errno, what);
        return Mapping(p, bytes);
    }

    Mapping(Mapping&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    Mapping& operator=(Mapping&&) = delete;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() {
        if (data_)
            ::munmap(data_, size_);
    }

    char* data() const { return static_cast<char*>(data_); }
    size_t size() const { return size_; }

private:
    Mapping(void* data, size_t size) : data_(data), size_(size) {}
    void* data_;
    size_t size_;
};

} // namespace uringprobe
