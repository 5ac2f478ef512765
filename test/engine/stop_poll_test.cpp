#include "contract/stop_poll.hpp"

#include <gtest/gtest.h>

#include <functional>

using uringprobe::StopPoll;

// The first poll() asks; the next kEvery - 1 do not, however long they
// take (they only count); once the answer is yes, every poll() is true
// and nobody is asked again.
TEST(StopPoll, AsksFirstThenEveryKEveryAndSticks) {
    int asked = 0;
    bool answer = false;
    const std::function<bool()> should_stop = [&] {
        ++asked;
        return answer;
    };
    StopPoll stop(should_stop);
    EXPECT_FALSE(stop.poll());
    EXPECT_EQ(asked, 1);
    for (int i = 1; i < StopPoll::kEvery; ++i)
        EXPECT_FALSE(stop.poll());
    EXPECT_EQ(asked, 1);
    answer = true;
    EXPECT_TRUE(stop.poll_now());
    EXPECT_EQ(asked, 2);
    for (int i = 0; i < 3 * StopPoll::kEvery; ++i)
        EXPECT_TRUE(stop.poll());
    EXPECT_TRUE(stop.poll_now());
    EXPECT_TRUE(stop.stopped());
    EXPECT_EQ(asked, 2);
}

// A stop seen by poll() sticks too, and no stop rule means no stop.
TEST(StopPoll, StopSeenByPollSticks) {
    int asked = 0;
    const std::function<bool()> yes = [&] {
        ++asked;
        return true;
    };
    StopPoll stop(yes);
    EXPECT_TRUE(stop.poll());
    for (int i = 0; i < 3 * StopPoll::kEvery; ++i)
        EXPECT_TRUE(stop.poll());
    EXPECT_EQ(asked, 1);

    const std::function<bool()> none;
    StopPoll never(none);
    for (int i = 0; i < 3 * StopPoll::kEvery; ++i)
        EXPECT_FALSE(never.poll());
    EXPECT_FALSE(never.poll_now());
}
