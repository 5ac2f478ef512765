#include "io/read_order.hpp"

#include <algorithm>

namespace uringprobe {

namespace {
// splitmix64's finalizer: every input bit moves every output bit.
std::uint64_t mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
} // namespace

PieceList::PieceList(const std::vector<off_t>& sizes, size_t piece_bytes, size_t align)
    : sizes_(sizes), piece_bytes_(piece_bytes), align_(align) {
    for (off_t s : sizes_) {
        first_.push_back(count_);
        count_ += (static_cast<size_t>(s) + piece_bytes_ - 1) / piece_bytes_;
    }
}

Piece PieceList::operator[](size_t i) const {
    // The last file whose first piece is at or before i (an empty file
    // shares its first index with the next one).
    const size_t f =
        static_cast<size_t>(std::upper_bound(first_.begin(), first_.end(), i) - first_.begin()) - 1;
    const off_t offset = static_cast<off_t>((i - first_[f]) * piece_bytes_);
    const size_t left = static_cast<size_t>(sizes_[f] - offset);
    return {static_cast<int>(f), offset,
            std::min(piece_bytes_, (left + align_ - 1) / align_ * align_)};
}

ReadOrder::ReadOrder(size_t count, bool random, long long seed, int passes)
    : count_(count), passes_(static_cast<size_t>(passes)), random_(random) {
    while (half_bits_ < 32 && (std::uint64_t(1) << (2 * half_bits_)) < count_)
        ++half_bits_;
    std::uint64_t k = static_cast<std::uint64_t>(seed);
    for (auto& key : keys_)
        key = k = mix(k + 0x9e3779b97f4a7c15ULL);
}

size_t ReadOrder::permute(size_t x) const {
    const std::uint64_t mask = (std::uint64_t(1) << half_bits_) - 1;
    std::uint64_t left = x >> half_bits_, right = x & mask;
    for (const std::uint64_t key : keys_) {
        const std::uint64_t next = left ^ (mix(right ^ key) & mask);
        left = right;
        right = next;
    }
    return static_cast<size_t>((left << half_bits_) | right);
}

size_t ReadOrder::operator[](size_t i) const {
    const size_t k = i % count_;
    if (!random_)
        return k;
    // A permutation of [0, 4^half_bits) restricted to [0, count): walk
    // the cycle until back in range (4^half_bits < 4 x count: a few steps).
    size_t x = permute(k);
    while (x >= count_)
        x = permute(x);
    return x;
}

} // namespace uringprobe
