#include "boundary.hpp"

#include "../engine/contract/error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

namespace uringprobe::pg {

namespace {

void copy_text(char* dst, size_t size, const char* src) {
    std::strncpy(dst, src ? src : "", size - 1);
    dst[size - 1] = '\0';
}

int sqlstate_for_errno(int err) {
    switch (err) {
    case EPERM:
    case EACCES:
    case ELOOP: // a symlink where a scratch path must have a directory
        return ERRCODE_INSUFFICIENT_PRIVILEGE;
    case ENOENT:
        return ERRCODE_UNDEFINED_FILE;
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
    ErrorData* e = CopyErrorData();
    FlushErrorState();
    out->raised = true;
    out->sqlstate = e->sqlerrcode;
    snprintf(out->message, sizeof out->message, "%s: %s", what, e->message ? e->message : "");
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
