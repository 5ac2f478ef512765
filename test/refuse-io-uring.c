/* refuse-io-uring [--errno EPERM|ENOSYS] COMMAND [ARG...]: runs COMMAND
 * with io_uring refused to it and to every process it starts, as a
 * container's seccomp profile refuses it (refuse_io_uring.h), and nothing
 * changed on the host: how the tests start a server that cannot use
 * io_uring. EPERM unless told. */
#include "refuse_io_uring.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
    int err = EPERM, first = 1;
    if (argc > 2 && strcmp(argv[1], "--errno") == 0) {
        err = strcmp(argv[2], "EPERM") == 0 ? EPERM : strcmp(argv[2], "ENOSYS") == 0 ? ENOSYS : 0;
        first = 3;
    }
    if (err == 0 || first >= argc) {
        fprintf(stderr, "usage: refuse-io-uring [--errno EPERM|ENOSYS] COMMAND [ARG...]\n");
        return 2;
    }
    if (refuse_io_uring(err) != 0) {
        fprintf(stderr, "refuse-io-uring: installing the seccomp filter: %s\n", strerror(errno));
        return 125;
    }
    execvp(argv[first], argv + first);
    fprintf(stderr, "refuse-io-uring: %s: %s\n", argv[first], strerror(errno));
    return 127;
}
