#include "text_rows.hpp"

#include "boundary.hpp"

#include <new>

namespace uringprobe::pg {

void copy_text_rows(const std::vector<std::vector<std::string>>& rows, int ncols, TextRows* out) {
    const size_t n = rows.size() * static_cast<size_t>(ncols);
    out->cells =
        static_cast<char**>(palloc_extended(sizeof(char*) * (n ? n : 1), MCXT_ALLOC_NO_OOM));
    if (!out->cells)
        throw std::bad_alloc();
    for (size_t r = 0; r < rows.size(); ++r)
        for (int c = 0; c < ncols; ++c)
            out->cells[r * ncols + c] =
                pstrdup_guarded(c < static_cast<int>(rows[r].size()) ? rows[r][c] : "");
    out->nrows = static_cast<int>(rows.size());
    out->ncols = ncols;
}

void emit_text_rows(FunctionCallInfo fcinfo, const TextRows& rows) {
#if PG_VERSION_NUM >= 160000
    InitMaterializedSRF(fcinfo, 0);
#else
    SetSingleFuncCall(fcinfo, 0);
#endif
    ReturnSetInfo* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    Datum* values = static_cast<Datum*>(palloc(sizeof(Datum) * rows.ncols));
    bool* nulls = static_cast<bool*>(palloc0(sizeof(bool) * rows.ncols));
    for (int r = 0; r < rows.nrows; ++r) {
        for (int c = 0; c < rows.ncols; ++c)
            values[c] = CStringGetTextDatum(rows.cells[r * rows.ncols + c]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
}

} // namespace uringprobe::pg
