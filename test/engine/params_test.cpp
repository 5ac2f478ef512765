#include "params.hpp"

#include <gtest/gtest.h>

using namespace uringprobe;

namespace {
const NamedValue kColours[] = {{"red", 1}, {"green", 2}};
}

TEST(Params, LookupName) {
    EXPECT_EQ(lookup_name(kColours, "colour", "green"), 2);
    EXPECT_STREQ(name_of(kColours, 1), "red");
    EXPECT_STREQ(name_of(kColours, 7), "?");
    try {
        lookup_name(kColours, "colour", "blue");
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "colour must be one of red, green, got 'blue'");
    }
}

TEST(Params, CheckRange) {
    EXPECT_NO_THROW(check_range("depth", 1, 1, 4096));
    EXPECT_NO_THROW(check_range("depth", 4096, 1, 4096));
    try {
        check_range("depth", 0, 1, 4096);
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "depth must be between 1 and 4096, got 0");
    }
    EXPECT_THROW(check_range("depth", -9223372036854775807L, 1, 2), InvalidArgument);
}
