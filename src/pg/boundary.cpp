#include "boundary.hpp"

#include "../engine/contract/error.hpp"

extern "C" {
#include "mb/pg_wchar.h" // pg_mbcliplen
}

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

namespace uringprobe::pg {

namespace {

// Copies `src` into dst[size], cut where it must be at the end of a
// character in the database's encoding (pg_mbcliplen: no allocation, no
// error): a character cut in two would turn the error into another one
// (22021) when the message is converted to the client's encoding.
void copy_text(char* dst, size_t size, const char* src) {
    src = src ? src : "";
    const size_t len = std::strlen(src);
    const int n = len < size ? static_cast<int>(len)
                             : pg_mbcliplen(src, static_cast<int>(std::min<size_t>(len, INT_MAX)),
                                            static_cast<int>(size) - 1);
    std::memcpy(dst, src, static_cast<size_t>(n));
    dst[n] = '\0';
}

// As PostgreSQL's errcode_for_file_access() maps them, and the ones it has
// no file for.
int sqlstate_for_errno(int err) {
    switch (err) {
    case EPERM:
    case EACCES:
    case EROFS:
    case ELOOP: // a symlink where a scratch path must have a directory
        return ERRCODE_INSUFFICIENT_PRIVILEGE;
    case ENOENT:
        return ERRCODE_UNDEFINED_FILE;
    case EEXIST:
        return ERRCODE_DUPLICATE_FILE;
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
        return ERRCODE_WRONG_OBJECT_TYPE;
    case EIO:
        return ERRCODE_IO_ERROR;
    case ENOSPC:
        return ERRCODE_DISK_FULL;
    case EMFILE:
    case ENFILE:
    case ENOMEM:
        return ERRCODE_INSUFFICIENT_RESOURCES;
    case ENOSYS:
    case EOPNOTSUPP:
        return ERRCODE_FEATURE_NOT_SUPPORTED;
    default:
        return ERRCODE_SYSTEM_ERROR;
    }
}

} // namespace

void take_pg_error(const char* what, MemoryContext cxt, CapturedError* out) noexcept {
    MemoryContextSwitchTo(cxt);
    out->raised = true;
    // CopyErrorData allocates, and an ERROR it raised (out of memory) here
    // would jump past the engine's frames: it is caught too, and the
    // error then is one this code can say without allocating.
    ErrorData* volatile e = nullptr;
    PG_TRY();
    { e = CopyErrorData(); }
    PG_CATCH();
    { e = nullptr; }
    PG_END_TRY();
    MemoryContextSwitchTo(cxt);
    FlushErrorState();
    if (!e) {
        out->sqlstate = ERRCODE_OUT_OF_MEMORY;
        snprintf(out->message, sizeof out->message, "%s: out of memory copying its error", what);
        return;
    }
    out->sqlstate = e->sqlerrcode;
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s: ", what);
    const size_t n = std::strlen(prefix);
    std::memcpy(out->message, prefix, n);
    copy_text(out->message + n, sizeof out->message - n, e->message);
    copy_text(out->detail, sizeof out->detail, e->detail);
    copy_text(out->hint, sizeof out->hint, e->hint);
    FreeErrorData(e);
}

void capture_current_exception(CapturedError* err) noexcept {
    err->raised = true;
    try {
        throw;
    } catch (const PgError& e) {
        *err = e.error();
    } catch (const InvalidArgument& e) {
        err->sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
        copy_text(err->message, sizeof err->message, e.what());
    } catch (const SysError& e) {
        err->sqlstate = sqlstate_for_errno(e.err());
        err->saved_errno = e.err();
        copy_text(err->message, sizeof err->message, e.what());
        copy_text(err->hint, sizeof err->hint, e.hint().c_str());
    } catch (const std::bad_alloc&) {
        err->sqlstate = ERRCODE_OUT_OF_MEMORY;
        copy_text(err->message, sizeof err->message, "out of memory in uringprobe");
    } catch (const std::exception& e) {
        err->sqlstate = ERRCODE_INTERNAL_ERROR;
        copy_text(err->message, sizeof err->message, e.what());
    } catch (...) {
        err->sqlstate = ERRCODE_INTERNAL_ERROR;
        copy_text(err->message, sizeof err->message, "unknown C++ exception in uringprobe");
    }
}

void raise_captured(const CapturedError& err) {
    ereport(ERROR, (errcode(err.sqlstate), errmsg("uringprobe: %s", err.message),
                    err.detail[0] ? errdetail("%s", err.detail) : 0,
                    err.hint[0] ? errhint("%s", err.hint) : 0));
    pg_unreachable();
}

void* palloc_guarded(size_t bytes) {
    void* p = palloc_extended(bytes ? bytes : 1, MCXT_ALLOC_NO_OOM);
    if (!p)
        throw std::bad_alloc();
    return p;
}

char* pstrdup_guarded(const std::string& s) {
    char* p = static_cast<char*>(palloc_guarded(s.size() + 1));
    std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

} // namespace uringprobe::pg
