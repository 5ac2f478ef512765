// Set-returning output of an engine Table. Inside run_guarded() the table is
// copied into palloc'd plain cells (no C++ object survives the guarded
// scope); afterwards the cells become the function's result rows.
#pragma once

#include "postgres_headers.hpp"

#include "../engine/contract/table.hpp"

namespace uringprobe::pg {

struct ResultCell {
    Value::Kind kind;
    int64 i;
    double d;
    char* s;
};

struct ResultRows {
    int nrows = 0;
    int ncols = 0;
    char** names = nullptr;      // ncols column names
    ResultCell* cells = nullptr; // nrows * ncols, row-major
};

// Inside run_guarded(): copy `table` into `out` without raising.
void copy_table(const Table& table, ResultRows* out);

// Outside run_guarded(): return `rows` as the function's result set. The
// function's OUT columns must match the table's columns in number, name
// and order, with bigint for integers, double precision for reals and
// text for text; a mismatch (an install script of another version) is an
// error naming the first column that differs.
void emit_rows(FunctionCallInfo fcinfo, const ResultRows& rows);

} // namespace uringprobe::pg
