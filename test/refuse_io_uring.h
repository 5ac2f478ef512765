/* io_uring refused to this process and every process it starts, as a
 * container runtime's seccomp profile refuses it (Docker's and containerd's
 * default profiles since 2023): io_uring_setup, io_uring_enter and
 * io_uring_register fail with `err` (EPERM there), every other system call
 * runs. Nothing outside the process changes. Used by the engine tests and
 * by test/refuse-io-uring.c, which starts a server this way. C and C++.
 * And O_DIRECT refused the same way, for the engine tests. */
#ifndef URINGPROBE_REFUSE_IO_URING_H
#define URINGPROBE_REFUSE_IO_URING_H

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define URINGPROBE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define URINGPROBE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "refuse_io_uring: add this architecture's AUDIT_ARCH"
#endif

/* Every filter's first statements: another architecture's calls (a
 * 32-bit process on a 64-bit kernel) pass; then the call's number is
 * loaded. */
#define URINGPROBE_FILTER_PROLOGUE                                                                 \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),                       \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, URINGPROBE_AUDIT_ARCH, 1, 0),                          \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                                              \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

/* Installs the filter of `n` statements at `code` on this process (and
 * what it starts): 0, or -1 with errno set. */
static inline int install_filter(struct sock_filter* code, size_t n) {
    struct sock_fprog prog = {(unsigned short)n, code};
    /* A filter needs no privilege once the process gives up gaining any. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* 0, or -1 with errno set. */
static inline int refuse_io_uring(int err) {
    /* The three io_uring calls are numbered together (425-427) on every
     * architecture of the generic table. */
    struct sock_filter code[] = {
        URINGPROBE_FILTER_PROLOGUE,
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __NR_io_uring_setup, 0, 2),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, __NR_io_uring_register, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    return install_filter(code, sizeof code / sizeof code[0]);
}

/* O_DIRECT refused to this process, as a filesystem without it refuses
 * it: openat with O_DIRECT in its flags fails with EINVAL, everything else
 * runs. 0, or -1 with errno set. */
#ifdef O_DIRECT /* _GNU_SOURCE */
static inline int refuse_o_direct(void) {
    struct sock_filter code[] = {
        URINGPROBE_FILTER_PROLOGUE,
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* the flags' low 32 bits (little-endian) */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_DIRECT, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    return install_filter(code, sizeof code / sizeof code[0]);
}
#endif

#endif
