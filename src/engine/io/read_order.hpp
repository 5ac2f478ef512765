// The pieces uringprobe_reads() reads its files in, and the order it reads
// them in, each computed from its index: no list of pieces is held, so a
// call's memory is its buffers however large the files (a 100 GB table in
// 4 KiB pieces is 26 Mi pieces; a list of them took 840 MB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/types.h>
#include <vector>

namespace uringprobe {

// One read: a piece of one of the files.
struct Piece {
    int file;
    off_t offset;
    size_t length;
};

// Files of `sizes` bytes cut in pieces of `piece_bytes`, the last piece of
// each rounded up to whole `align` units (a read stops at the end of the
// file; O_DIRECT reads whole units).
class PieceList {
public:
    PieceList() = default;
    PieceList(const std::vector<off_t>& sizes, size_t piece_bytes, size_t align);
    size_t size() const { return count_; }
    Piece operator[](size_t i) const;

private:
    std::vector<off_t> sizes_;
    std::vector<size_t> first_; // per file: the index of its first piece
    size_t piece_bytes_ = 1, align_ = 1, count_ = 0;
};

// Positions 0 .. count x passes - 1 mapped to pieces: in order, or in a
// seeded random order, the same each pass. The random order is a keyed
// permutation (a four-round Feistel network over the next power of four,
// walking back into range), computed per position.
class ReadOrder {
public:
    ReadOrder(size_t count, bool random, long long seed, int passes);
    size_t size() const { return count_ * passes_; }
    size_t operator[](size_t i) const;

private:
    size_t permute(size_t x) const;

    size_t count_, passes_;
    bool random_;
    int half_bits_ = 1;
    std::uint64_t keys_[4] = {};
};

} // namespace uringprobe
