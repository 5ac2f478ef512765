#include "sql_args.hpp"

#include <string>

extern "C" {
#include "utils/timestamp.h"
}

namespace uringprobe::pg {

void copy_shape(const std::vector<Param>& params, SqlArgShape* out) {
    const int n = static_cast<int>(params.size());
    out->nargs = n;
    out->types = static_cast<ParamType*>(palloc_guarded(sizeof(ParamType) * n));
    out->nullable = static_cast<bool*>(palloc_guarded(sizeof(bool) * n));
    out->names = static_cast<char**>(palloc_guarded(sizeof(char*) * n));
    std::string nullable_names;
    int nullable_count = 0;
    for (int i = 0; i < n; ++i) {
        out->types[i] = params[i].type;
        out->names[i] = pstrdup_guarded(params[i].name);
        out->nullable[i] = params[i].sql_declared_default() == "NULL";
        if (out->nullable[i]) {
            nullable_names = params[i].name;
            ++nullable_count;
        }
    }
    out->null_message =
        pstrdup_guarded(nullable_count == 1 ? "only " + nullable_names + " may be NULL"
                                            : std::string("arguments must not be NULL"));
}

namespace {

// An interval as seconds (a month is 30 days, a day 24 hours, as
// PostgreSQL's own arithmetic counts them); an infinite one is an ERROR.
double interval_seconds(const Interval* v, const char* name) {
#ifdef INTERVAL_NOT_FINITE
    if (INTERVAL_NOT_FINITE(v))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("uringprobe: %s must be a finite interval, got %s", name,
                               INTERVAL_IS_NOBEGIN(v) ? "-infinity" : "infinity")));
#else
    (void)name;
#endif
    return v->time / 1e6 + v->day * double(SECS_PER_DAY) +
           v->month * double(DAYS_PER_MONTH) * SECS_PER_DAY;
}

} // namespace

SqlArg* read_sql_args(FunctionCallInfo fcinfo, const SqlArgShape& shape, const char* function) {
    if (PG_NARGS() != shape.nargs)
        elog(ERROR,
             "uringprobe: %s takes %d arguments in the module but was declared with %d; "
             "reinstall the extension (ALTER EXTENSION uringprobe UPDATE)",
             function, shape.nargs, PG_NARGS());
    for (int i = 0; i < shape.nargs; ++i) {
        if (PG_ARGISNULL(i) && !shape.nullable[i])
            ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                            errmsg("%s: %s", function, shape.null_message)));
    }
    SqlArg* args = static_cast<SqlArg*>(palloc0(sizeof(SqlArg) * (shape.nargs ? shape.nargs : 1)));
    for (int i = 0; i < shape.nargs; ++i) {
        SqlArg& a = args[i];
        a.null = PG_ARGISNULL(i);
        if (a.null)
            continue;
        switch (shape.types[i]) {
        case ParamType::integer:
            a.i = PG_GETARG_INT32(i);
            break;
        case ParamType::bigint:
            a.i = PG_GETARG_INT64(i);
            break;
        case ParamType::boolean:
            a.b = PG_GETARG_BOOL(i);
            break;
        case ParamType::text:
            a.s = text_to_cstring(PG_GETARG_TEXT_PP(i));
            break;
        case ParamType::seconds:
            a.seconds = interval_seconds(PG_GETARG_INTERVAL_P(i), shape.names[i]);
            break;
        case ParamType::relation:
            a.i = PG_GETARG_OID(i);
            break;
        }
    }
    return args;
}

} // namespace uringprobe::pg
