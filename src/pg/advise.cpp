// uringprobe_advise(): what to set on this server, from small runs of the
// experiments in this backend against its own settings, within a budget.
#include "experiment.hpp"
#include "module.hpp"
#include "server_settings.hpp"

#include "../engine/advise/advise.hpp"
#include "../engine/advise/advise_script.hpp"
#include "../engine/advise/advise_targets.hpp"

#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "catalog/pg_authid_d.h"
#include "catalog/pg_tablespace_d.h"
#include "common/relpath.h"
#include "executor/spi.h"
#include "storage/proc.h"
#include "utils/acl.h"
}

namespace {

// A tablespace, read from pg_tablespace before any C++ object exists.
struct TablespaceText {
    char* name;
    char* home;                     // its relation files' directory
    int effective_io_concurrency;   // its own, -1: the server's
    int maintenance_io_concurrency; // its own, -1: the server's
};

char* spi_copy(const char* s) {
    char* out = static_cast<char*>(SPI_palloc(strlen(s) + 1));
    strcpy(out, s);
    return out;
}

// The integer option `name` of a tablespace's options ("a=1,b=2"), -1
// where it has none.
int option_value(const char* options, const char* name) {
    const size_t len = strlen(name);
    for (const char* p = options; p && *p;) {
        if (strncmp(p, name, len) == 0 && p[len] == '=')
            return atoi(p + len + 1);
        p = strchr(p, ',');
        if (p)
            ++p;
    }
    return -1;
}

// Every tablespace relations can live in (not pg_global), by oid.
int read_tablespaces(TablespaceText** out) {
    if (SPI_connect() != SPI_OK_CONNECT)
        elog(ERROR, "uringprobe_advise: SPI_connect failed");
    // (each option of spcoptions as 'name=value')
    if (SPI_execute("SELECT oid, spcname, "
                    "pg_catalog.array_to_string(spcoptions, ',') FROM pg_catalog.pg_tablespace "
                    "WHERE spcname OPERATOR(pg_catalog.<>) 'pg_global' ORDER BY oid",
                    true, 0) != SPI_OK_SELECT)
        elog(ERROR, "uringprobe_advise: reading pg_tablespace failed");
    const int n = static_cast<int>(SPI_processed);
    // In the function's context: SPI_finish frees SPI's own.
    TablespaceText* t =
        static_cast<TablespaceText*>(SPI_palloc(sizeof(TablespaceText) * (n > 0 ? n : 1)));
    for (int i = 0; i < n; ++i) {
        HeapTuple row = SPI_tuptable->vals[i];
        TupleDesc desc = SPI_tuptable->tupdesc;
        bool isnull = false;
        const Oid oid = DatumGetObjectId(SPI_getbinval(row, desc, 1, &isnull));
        const char* name = SPI_getvalue(row, desc, 2);
        char home[MAXPGPATH];
        if (oid == DEFAULTTABLESPACE_OID)
            snprintf(home, sizeof home, "%s/base", DataDir);
        else
            snprintf(home, sizeof home, "%s/pg_tblspc/%u/%s", DataDir, oid,
                     TABLESPACE_VERSION_DIRECTORY);
        t[i].name = spi_copy(name);
        t[i].home = spi_copy(home);
        const char* options = SPI_getvalue(row, desc, 3);
        t[i].effective_io_concurrency = option_value(options, "effective_io_concurrency");
        t[i].maintenance_io_concurrency = option_value(options, "maintenance_io_concurrency");
    }
    SPI_finish();
    *out = t;
    return n;
}

} // namespace

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_advise);
Datum uringprobe_advise(PG_FUNCTION_ARGS);
PG_FUNCTION_INFO_V1(uringprobe_advise_script);
Datum uringprobe_advise_script(PG_FUNCTION_ARGS);
}

namespace {

// Either function: the request from this server and the arguments, the
// advice, then its rows as `table` makes them.
template <class MakeTable>
Datum run_advise(FunctionCallInfo fcinfo, const char* name, MakeTable table) {
    const uringprobe::pg::ServerSettingTexts settings = uringprobe::pg::read_server_settings();
    const char* file_extend_method = uringprobe::pg::setting_copy("file_extend_method");
    const int statement_timeout_ms = StatementTimeout;
    const bool may_write = has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES);
    const int max_budget = uringprobe::pg::max_advise_seconds_setting;
    const int max_rings = uringprobe::pg::max_rings_setting;
    const int max_forks = uringprobe::pg::max_forks_setting;
    const int max_scratch_mb = uringprobe::pg::max_scratch_mb_setting;
    const int max_memory_mb = uringprobe::pg::max_memory_mb_setting;
    const int max_read_in_flight = uringprobe::pg::max_read_in_flight_setting;
    const char* listed = uringprobe::pg::advise_tablespaces_setting;
    const char* scratch_dirs = uringprobe::pg::scratch_dirs_setting;
    TablespaceText* tablespaces = nullptr;
    const int ntablespaces = read_tablespaces(&tablespaces);

    return uringprobe::pg::run_experiment(
        fcinfo, name, uringprobe::advise_params, [&](uringprobe::AdviseRequest& req) {
            req.process = "backend";
            req.server = uringprobe::pg::server_facts(settings);
            req.file_extend_method = file_extend_method ? file_extend_method : "";
            req.max_budget_seconds = max_budget;
            req.budget_cap_name = uringprobe::kMaxAdviseSeconds.name;
            // Every cap the experiments' own functions are held to.
            req.caps = {{uringprobe::kMaxRings.name, max_rings},
                        {uringprobe::kMaxForks.name, max_forks},
                        {uringprobe::kMaxScratchMb.name, max_scratch_mb},
                        {uringprobe::kMaxMemoryMb.name, max_memory_mb},
                        {uringprobe::kMaxReadInFlight.name, max_read_in_flight}};
            if (!may_write)
                req.cannot_write = "the caller lacks pg_write_server_files, which writing "
                                   "scratch files into a tablespace needs";
            std::vector<uringprobe::TablespaceDirs> dirs;
            for (int i = 0; i < ntablespaces; ++i)
                dirs.push_back({tablespaces[i].name, tablespaces[i].home,
                                tablespaces[i].effective_io_concurrency,
                                tablespaces[i].maintenance_io_concurrency});
            req.targets = uringprobe::advise_targets(dirs, listed ? listed : "",
                                                     scratch_dirs ? scratch_dirs : "");
            uringprobe::validate(req);
            // A statement_timeout shorter than twice the budget could cancel
            // the call before it answers: the rounds end in half of it, room
            // for a round that takes longer than its estimate, and one still
            // running at 80% of it is stopped, the advice made from the
            // rounds done in the rest.
            const double timeout = statement_timeout_ms / 1000.0;
            if (timeout > 0)
                req.deadline_seconds = 0.8 * timeout;
            if (timeout > 0 && req.budget_seconds > 0.5 * timeout) {
                char note[128];
                std::snprintf(note, sizeof note,
                              "lowered from %.1f s to %.2f s, half of statement_timeout",
                              req.budget_seconds, 0.5 * timeout);
                req.budget_note = note;
                req.budget_seconds = 0.5 * timeout;
            }
            return table(req, uringprobe::advise(req, uringprobe::pg::stop_requested));
        });
}

} // namespace

Datum uringprobe_advise(PG_FUNCTION_ARGS) {
    return run_advise(fcinfo, "uringprobe_advise",
                      [](const uringprobe::AdviseRequest&, const uringprobe::AdviseResult& r) {
                          return uringprobe::advise_table(r);
                      });
}

Datum uringprobe_advise_script(PG_FUNCTION_ARGS) {
    return run_advise(fcinfo, "uringprobe_advise_script",
                      [](const uringprobe::AdviseRequest& req, const uringprobe::AdviseResult& r) {
                          return uringprobe::advice_script_table(uringprobe::advice_script(
                              r.rows, "this server (PostgreSQL " + req.server.version + ")",
                              req.server.version_num));
                      });
}
