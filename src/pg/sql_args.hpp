// An experiment's SQL arguments, read by its parameter table: which
// arguments may be NULL and how each is typed comes from the table, never
// from a hand-typed count. The reading is split around the boundary: the
// table's shape is copied out inside run_guarded(), the arguments are read
// with PostgreSQL's calls outside it into plain palloc'd values, and they
// become the engine's Params inside again.
#pragma once

#include "boundary.hpp"
#include "postgres_headers.hpp"

#include "../engine/contract/param_table.hpp"

namespace uringprobe::pg {

// One argument as read: no C++ object, so that an ERROR may cross it.
struct SqlArg {
    bool null;
    int64 i;
    bool b;
    const char* s;
    double seconds; // an interval
};

// What reading needs of a table, in plain storage.
struct SqlArgShape {
    int nargs = 0;
    ParamType* types = nullptr;
    bool* nullable = nullptr;
    char* null_message = nullptr; // "only dir may be NULL" or "arguments must not be NULL"
    char** names = nullptr;
};

// Inside run_guarded(): the shape of `params`.
void copy_shape(const std::vector<Param>& params, SqlArgShape* out);

// Outside run_guarded(): every argument, by `shape`; a NULL where the
// table allows none is ERROR 22004 naming the function, an infinite
// interval ERROR 22023.
SqlArg* read_sql_args(FunctionCallInfo fcinfo, const SqlArgShape& shape, const char* function);

// Inside run_guarded(): the arguments set into `p` through `table`.
// Rows of the command line alone (in_sql false) take no argument.
template <typename P> void set_from_args(const ParamTable<P>& table, const SqlArg* args, P& p) {
    size_t i = 0;
    for (const auto& row : table) {
        if (!row.param.in_sql)
            continue;
        ParamValue v;
        v.null = args[i].null;
        v.i = args[i].i;
        v.b = args[i].b;
        v.seconds = args[i].seconds;
        if (args[i].s)
            v.s = args[i].s;
        row.set(p, v);
        ++i;
    }
}

// The Params a SQL function declares (in_sql), in order.
template <typename P> std::vector<Param> sql_params_of(const ParamTable<P>& table) {
    std::vector<Param> out;
    for (const auto& row : table)
        if (row.param.in_sql)
            out.push_back(row.param);
    return out;
}

} // namespace uringprobe::pg
