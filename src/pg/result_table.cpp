#include "result_table.hpp"

#include "boundary.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "utils/builtins.h"
}

#include <new>

namespace uringprobe::pg {

void copy_table(const Table& table, ResultRows* out) {
    const int ncols = static_cast<int>(table.columns.size());
    const size_t n = table.rows.size() * static_cast<size_t>(ncols);
    out->names = static_cast<char**>(palloc_guarded(sizeof(char*) * ncols));
    for (int c = 0; c < ncols; ++c)
        out->names[c] = pstrdup_guarded(table.columns[c].name);
    out->cells = static_cast<ResultCell*>(palloc_guarded(sizeof(ResultCell) * n));
    for (size_t r = 0; r < table.rows.size(); ++r) {
        for (int c = 0; c < ncols; ++c) {
            const Value& v = table.rows[r].at(c);
            ResultCell& cell = out->cells[r * ncols + c];
            cell.kind = v.kind;
            cell.i = v.i;
            cell.d = v.d;
            cell.s = v.kind == Value::Kind::text ? pstrdup_guarded(v.s) : nullptr;
        }
    }
    out->nrows = static_cast<int>(table.rows.size());
    out->ncols = ncols;
}

void emit_rows(FunctionCallInfo fcinfo, const ResultRows& rows) {
#if PG_VERSION_NUM >= 160000
    InitMaterializedSRF(fcinfo, 0);
#else
    SetSingleFuncCall(fcinfo, 0);
#endif
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    TupleDesc desc = rsinfo->setDesc;
    if (desc->natts != rows.ncols)
        elog(ERROR,
             "uringprobe: the function returns %d columns but the module produced %d; "
             "reinstall the extension (ALTER EXTENSION uringprobe UPDATE)",
             desc->natts, rows.ncols);
    for (int c = 0; c < rows.ncols; ++c) {
        const char* name = NameStr(TupleDescAttr(desc, c)->attname);
        if (strcmp(name, rows.names[c]) != 0)
            elog(ERROR,
                 "uringprobe: column %d of the function is \"%s\" but the module produced "
                 "\"%s\"; reinstall the extension (ALTER EXTENSION uringprobe UPDATE)",
                 c + 1, name, rows.names[c]);
    }
    Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * rows.ncols));
    bool* nulls = static_cast<bool*>(palloc(sizeof(bool) * rows.ncols));
    for (int r = 0; r < rows.nrows; ++r) {
        for (int c = 0; c < rows.ncols; ++c) {
            const ResultCell& cell = rows.cells[r * rows.ncols + c];
            const Oid type = TupleDescAttr(desc, c)->atttypid;
            nulls[c] = cell.kind == Value::Kind::null;
            if (nulls[c])
                continue;
            if (cell.kind == Value::Kind::integer && type == INT8OID)
                values[c] = Int64GetDatum(cell.i);
            else if (cell.kind == Value::Kind::integer && type == INT4OID)
                values[c] = Int32GetDatum(static_cast<int32>(cell.i));
            else if (cell.kind == Value::Kind::real && type == FLOAT8OID)
                values[c] = Float8GetDatum(cell.d);
            else if (cell.kind == Value::Kind::text && type == TEXTOID)
                values[c] = CStringGetTextDatum(cell.s);
            else
                elog(ERROR,
                     "uringprobe: column %d of the function (\"%s\") is %s, which cannot hold "
                     "the module's %s; reinstall the extension (ALTER EXTENSION uringprobe UPDATE)",
                     c + 1, rows.names[c], format_type_be(type),
                     cell.kind == Value::Kind::text      ? "text"
                     : cell.kind == Value::Kind::integer ? "bigint"
                                                         : "double precision");
        }
        tuplestore_putvalues(rsinfo->setResult, desc, values, nulls);
    }
}

} // namespace uringprobe::pg
