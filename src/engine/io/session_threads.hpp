// Runs sessions (objects with run(), returning their result, and stop())
// each on its own thread, created with every signal blocked so that
// signals keep going to the caller; keeps each thread alive after its
// session ends until released (so what the thread owns, its io-wq workers
// say, can still be sampled), and joins them all however the caller exits.
// A session that fails is expected to stop the others itself.
#pragma once

#include "contract/error.hpp"
#include "os/signals.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <utility>
#include <vector>

namespace uringprobe {

// A session's stack. glibc keeps the stacks of joined threads mapped for
// the next ones (up to 40 MiB), and in a backend they stay for its life:
// at the default 8 MiB a run with 8 sessions left 4 of them behind, 32 MiB
// of committed memory (measured: 24 more mappings after one run). A
// session's deepest calls are the io_uring and file calls of its loop.
constexpr size_t kSessionStackBytes = 1 << 20;

// A joinable thread running `body` on a stack of kSessionStackBytes.
class SessionThread {
public:
    explicit SessionThread(std::function<void()> body)
        : body_(std::make_unique<std::function<void()>>(std::move(body))) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, kSessionStackBytes);
        const int err = pthread_create(&id_, &attr, &SessionThread::start, body_.get());
        pthread_attr_destroy(&attr);
        if (err != 0)
            throw SysError(err, "pthread_create");
        joinable_ = true;
    }
    ~SessionThread() { join(); }
    SessionThread(const SessionThread&) = delete;
    SessionThread& operator=(const SessionThread&) = delete;
    void join() {
        if (joinable_)
            pthread_join(id_, nullptr);
        joinable_ = false;
    }

private:
    static void* start(void* body) {
        (*static_cast<std::function<void()>*>(body))();
        return nullptr;
    }
    std::unique_ptr<std::function<void()>> body_;
    pthread_t id_{};
    bool joinable_ = false;
};

template <typename Session> class SessionThreads {
public:
    using Result = decltype(std::declval<Session&>().run());

    explicit SessionThreads(std::vector<std::unique_ptr<Session>>& sessions)
        : results_(sessions.size()) {
        const AllSignalsBlocked blocked;
        try {
            for (size_t i = 0; i < sessions.size(); ++i)
                threads_.push_back(std::make_unique<SessionThread>(
                    [this, i, s = sessions[i].get()] { body(i, *s); }));
        } catch (...) {
            std::lock_guard<std::mutex> g(mu_);
            if (!failure_)
                failure_ = std::current_exception();
            done_ += sessions.size() - threads_.size(); // never started
            for (auto& s : sessions)
                s->stop();
        }
    }
    ~SessionThreads() { release_and_join(); }
    SessionThreads(const SessionThreads&) = delete;
    SessionThreads& operator=(const SessionThreads&) = delete;

    bool wait_all_done(std::chrono::milliseconds timeout) {
        std::unique_lock<std::mutex> g(mu_);
        return cv_.wait_for(g, timeout, [this] { return done_ == results_.size(); });
    }
    void release_and_join() {
        {
            std::lock_guard<std::mutex> g(mu_);
            released_ = true;
        }
        cv_.notify_all();
        for (auto& t : threads_)
            t->join();
    }
    // After release_and_join(): the first failure, and every result.
    std::exception_ptr failure() const { return failure_; }
    const std::vector<Result>& results() const { return results_; }

private:
    void body(size_t i, Session& s) {
        Result r;
        std::exception_ptr err;
        try {
            r = s.run();
        } catch (...) {
            err = std::current_exception();
        }
        std::unique_lock<std::mutex> g(mu_);
        results_[i] = std::move(r);
        if (err && !failure_)
            failure_ = err;
        ++done_;
        cv_.notify_all();
        cv_.wait(g, [this] { return released_; });
    }

    std::vector<Result> results_;
    std::vector<std::unique_ptr<SessionThread>> threads_;
    std::mutex mu_;
    std::condition_variable cv_;
    size_t done_ = 0;
    bool released_ = false;
    std::exception_ptr failure_;
};

} // namespace uringprobe
