#include "experiments/extend_session.hpp"

#include "contract/clock.hpp"

#include <algorithm>
#include <cstring>
#include <sys/resource.h>

namespace uringprobe {

namespace {
constexpr int kZeroExtendCutoff = 8; // mdzeroextend: more blocks than this -> fallocate
constexpr std::uint64_t kStamp = 0x75726970726f6265ULL; // "uringpro be"

FileIo::Via via_of(ExtendInterface i) {
    return i == ExtendInterface::sync       ? FileIo::Via::syscalls
           : i == ExtendInterface::io_uring ? FileIo::Via::ring
                                            : FileIo::Via::ring_async;
}

} // namespace

int waiters_extension_blocks(int pages, int waiters, bool prior, std::uint64_t extended_before) {
    std::uint64_t n = static_cast<std::uint64_t>(pages) * (1 + static_cast<std::uint64_t>(waiters));
    if (prior)
        n = std::max(n, extended_before);
    return static_cast<int>(std::min<std::uint64_t>(n, kMaxExtendBy));
}

void stamp_page(char* page, int block_size, std::uint64_t block) {
    std::memset(page, static_cast<int>((block & 0xff) | 1), static_cast<size_t>(block_size));
    std::memcpy(page, &block, sizeof block);
    std::memcpy(page + sizeof block, &kStamp, sizeof kStamp);
}

Session::Session(const ExtendParams& p, Target& target, int index, std::atomic<bool>& stop)
    : p_(p), target_(target), stop_(stop), io_(via_of(p.interface), &stop),
      fd_(target.file->reopen()),
      rng_(p.seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(index) + 1),
      zeros_(std::make_shared<std::vector<char>>(static_cast<size_t>(p.block_size), 0)),
      zero_iov_(static_cast<size_t>(max_extension_blocks(p)),
                iovec{zeros_->data(), zeros_->size()}),
      pages_(std::make_shared<std::vector<char>>(
          p.write_data ? static_cast<size_t>(max_extension_blocks(p)) * p.block_size : 0)) {
    r_.sizes.assign(static_cast<size_t>(max_extension_blocks(p)) + 1, 0);
    for (size_t i = 0; i < pages_->size(); i += static_cast<size_t>(p.block_size))
        page_iov_.push_back(iovec{pages_->data() + i, static_cast<size_t>(p.block_size)});
    io_.lend(zeros_, zeros_->size());
    io_.lend(pages_, pages_->size());
}

SessionResult Session::run() {
    try {
        return run_until_done();
    } catch (const FileIo::Stopped&) {
        return r_; // stopped while an operation was waited for
    } catch (...) {
        stop_ = true;
        throw;
    }
}

SessionResult Session::run_until_done() {
    rusage before{}, after{};
    getrusage(RUSAGE_THREAD, &before);
    while (!stop_.load(std::memory_order_relaxed)) {
        std::uint64_t first = 0;
        int n = 0;
        {
            // The waiters rules size an extension before the lock, from the
            // sessions blocked on it then, as PostgreSQL does.
            const std::uint64_t want =
                p_.sizing == ExtendSizing::uniform
                    ? 0
                    : static_cast<std::uint64_t>(waiters_extension_blocks(
                          p_.pages, target_.lock.waiters(),
                          p_.sizing == ExtendSizing::waiters_prior, r_.blocks));
            const std::int64_t t0 = now_ns();
            std::lock_guard<ExtensionLock> guard(target_.lock);
            const std::int64_t t1 = now_ns();
            if (p_.shared)
                r_.lock_wait_ms += (t1 - t0) / 1e6;
            if (target_.next_block >= target_.quota_blocks)
                break;
            n = static_cast<int>(std::min<std::uint64_t>(
                want ? want : draw(), target_.quota_blocks - target_.next_block));
            first = target_.next_block;
            extend(first, n);
            r_.latency.record(now_ns() - t1);
            target_.next_block += static_cast<std::uint64_t>(n);
        }
        if (r_.extensions++ == 0)
            r_.first_blocks = n;
        r_.blocks += static_cast<std::uint64_t>(n);
        if (static_cast<size_t>(n) < r_.sizes.size())
            ++r_.sizes[static_cast<size_t>(n)];
        if (p_.write_data)
            write_data(first, n);
    }
    getrusage(RUSAGE_THREAD, &after);
    r_.nvcsw = after.ru_nvcsw - before.ru_nvcsw;
    r_.nivcsw = after.ru_nivcsw - before.ru_nivcsw;
    return r_;
}

std::uint64_t Session::draw() {
    const auto span = static_cast<std::uint64_t>(p_.max_blocks - p_.min_blocks + 1);
    return static_cast<std::uint64_t>(p_.min_blocks) + rng_() % span;
}

void Session::extend(std::uint64_t first, int n) {
    const bool fallocate = p_.strategy == ExtendStrategy::fallocate ||
                           (p_.strategy == ExtendStrategy::mdzeroextend && n > kZeroExtendCutoff);
    const int kind = fallocate ? 1 : 0; // under the lock: the file's sequence of ways
    if (target_.last_kind >= 0 && target_.last_kind != kind)
        ++target_.switches;
    target_.last_kind = kind;
    if (fallocate) {
        io_.fallocate(fd_.get(), offset(first), offset(static_cast<std::uint64_t>(n)));
        ++r_.fallocates;
    } else if (p_.strategy == ExtendStrategy::write) {
        for (int i = 0; i < n; ++i) {
            io_.write_all(fd_.get(), zeros_->data(), zeros_->size(),
                          offset(first + static_cast<std::uint64_t>(i)));
            ++r_.zero_writes;
        }
    } else {
        r_.zero_writes += (n + FileIo::kMaxIov - 1) / FileIo::kMaxIov;
        io_.writev_all(fd_.get(), zero_iov_.data(), static_cast<size_t>(n), offset(first));
    }
}

void Session::write_data(std::uint64_t first, int n) {
    for (int i = 0; i < n; ++i)
        stamp_page(pages_->data() + size_t(i) * p_.block_size, p_.block_size,
                   first + static_cast<std::uint64_t>(i));
    // The same batches whatever the interface: write_batch pages (an iovec
    // each, as a buffer manager writes its buffers) in one vectored write,
    // waited for before the next batch.
    for (int b = 0; b < n; b += p_.write_batch) {
        const int k = std::min(p_.write_batch, n - b);
        io_.writev_all(fd_.get(), page_iov_.data() + b, static_cast<size_t>(k),
                       offset(first + static_cast<std::uint64_t>(b)));
        ++r_.data_writes;
    }
}

} // namespace uringprobe
