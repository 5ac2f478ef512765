// The pieces uringprobe_reads() reads and their order, computed per index
// (read_order.hpp): every piece once per pass, in either order, whatever
// the count; the files' ends rounded up to whole units.
#include "io/read_order.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace uringprobe;

TEST(ReadOrder, PiecesSpanTheFilesEmptyOnesIncluded) {
    const PieceList pieces({8192 + 100, 0, 4096, 0}, 4096, 4096);
    ASSERT_EQ(pieces.size(), 4u);
    const Piece expected[] = {{0, 0, 4096}, {0, 4096, 4096}, {0, 8192, 4096}, {2, 0, 4096}};
    for (size_t i = 0; i < pieces.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(pieces[i].file, expected[i].file);
        EXPECT_EQ(pieces[i].offset, expected[i].offset);
        EXPECT_EQ(pieces[i].length, expected[i].length);
    }
    // the last piece of a file: what is left, in whole units
    const PieceList big({3 * 65536 + 5000}, 65536, 4096);
    ASSERT_EQ(big.size(), 4u);
    EXPECT_EQ(big[3].offset, 3 * 65536);
    EXPECT_EQ(big[3].length, 8192u);
    EXPECT_EQ(PieceList({0, 0}, 4096, 4096).size(), 0u);
}

TEST(ReadOrder, EveryPieceOncePerPassInEitherOrder) {
    for (size_t count : {1u, 2u, 3u, 5u, 16u, 17u, 100u, 1000u, 4099u}) {
        for (const bool random : {false, true}) {
            SCOPED_TRACE(std::to_string(count) + (random ? " random" : " sequential"));
            const ReadOrder order(count, random, 7, 3);
            ASSERT_EQ(order.size(), count * 3);
            for (size_t pass = 0; pass < 3; ++pass) {
                std::vector<int> seen(count, 0);
                for (size_t i = 0; i < count; ++i) {
                    const size_t k = order[pass * count + i];
                    ASSERT_LT(k, count);
                    ++seen[k];
                    EXPECT_EQ(k, order[i]); // each pass the same order
                    if (!random) {
                        EXPECT_EQ(k, i);
                    }
                }
                for (int n : seen)
                    EXPECT_EQ(n, 1);
            }
        }
    }
}

TEST(ReadOrder, TheRandomOrderFollowsItsSeed) {
    const size_t count = 1000;
    const ReadOrder a(count, true, 1, 1), again(count, true, 1, 1), b(count, true, 2, 1);
    size_t same_as_again = 0, same_as_b = 0, in_place = 0;
    for (size_t i = 0; i < count; ++i) {
        same_as_again += a[i] == again[i];
        same_as_b += a[i] == b[i];
        in_place += a[i] == i;
    }
    EXPECT_EQ(same_as_again, count);
    EXPECT_LT(same_as_b, count / 10);
    EXPECT_LT(in_place, count / 10); // shuffled, not in order
}
