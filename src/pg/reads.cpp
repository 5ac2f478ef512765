// uringprobe_reads(): the same bytes of a file read one at a time, with
// advice ahead, kept in flight on a ring of this backend, or queued for
// threads: a scratch file, or a relation's own segment files.
#include "experiment.hpp"
#include "module.hpp"

#include "../engine/contract/caps.hpp"
#include "../engine/experiments/reads_experiment.hpp"
#include "../engine/io/scratch_file.hpp"

#include <cstring>

extern "C" {
#include "access/relation.h"
#include "catalog/pg_authid_d.h"
#include "catalog/pg_class_d.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/rel.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(uringprobe_reads);
Datum uringprobe_reads(PG_FUNCTION_ARGS);
}

namespace {

// A relation's main-fork segment files, as absolute paths (palloc'd).
struct RelationFiles {
    char** paths = nullptr;
    int count = 0;
    char* name = nullptr;
};

// Checks that the caller may read relation `relid`'s files and that they
// are a table's, then names them; the relation stays locked (AccessShare)
// to the end of the transaction, so that it is not dropped, truncated or
// rewritten under the reads. May ereport: call before any C++ object.
RelationFiles relation_files(Oid relid) {
    if (!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("uringprobe_reads: rel reads a relation's files"),
                        errdetail("Only roles with privileges of pg_read_server_files may.")));
    Relation rel = try_relation_open(relid, AccessShareLock);
    if (!rel)
        ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                        errmsg("uringprobe_reads: relation with OID %u does not exist", relid)));
    const char kind = rel->rd_rel->relkind;
    if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW && kind != RELKIND_TOASTVALUE)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("uringprobe_reads: \"%s\" is not a table or materialized view",
                               RelationGetRelationName(rel))));
    const AclResult acl = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT);
    if (acl != ACLCHECK_OK)
        aclcheck_error(acl, OBJECT_TABLE, RelationGetRelationName(rel));
    if (RELATION_IS_OTHER_TEMP(rel))
        ereport(ERROR,
                (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                 errmsg("uringprobe_reads: cannot read temporary tables of other sessions")));
    const BlockNumber blocks = RelationGetNumberOfBlocksInFork(rel, MAIN_FORKNUM);
    if (blocks == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("uringprobe_reads: \"%s\" has no blocks to read",
                               RelationGetRelationName(rel))));
#if PG_VERSION_NUM >= 180000
    const RelPathStr path = relpathbackend(rel->rd_locator, rel->rd_backend, MAIN_FORKNUM);
    const char* base = path.str;
#elif PG_VERSION_NUM >= 160000
    const char* base = relpathbackend(rel->rd_locator, rel->rd_backend, MAIN_FORKNUM);
#else
    const char* base = relpathbackend(rel->rd_node, rel->rd_backend, MAIN_FORKNUM);
#endif
    RelationFiles out;
    out.count = static_cast<int>((blocks + RELSEG_SIZE - 1) / RELSEG_SIZE);
    out.paths = static_cast<char**>(palloc(sizeof(char*) * out.count));
    for (int seg = 0; seg < out.count; ++seg)
        out.paths[seg] =
            seg == 0 ? psprintf("%s/%s", DataDir, base) : psprintf("%s/%s.%d", DataDir, base, seg);
    out.name = pstrdup(quote_identifier(RelationGetRelationName(rel)));
    relation_close(rel, NoLock);
    return out;
}

} // namespace

Datum uringprobe_reads(PG_FUNCTION_ARGS) {
    // Where rel is among the arguments, from the parameter table.
    int rel_arg = -1;
    uringprobe::pg::run_guarded([&] {
        int i = 0;
        for (const auto& row : uringprobe::reads_params())
            if (row.param.in_sql) {
                if (row.param.type == uringprobe::ParamType::relation)
                    rel_arg = i;
                ++i;
            }
    });
    RelationFiles rel;
    if (rel_arg >= 0 && rel_arg < PG_NARGS() && !PG_ARGISNULL(rel_arg))
        rel = relation_files(PG_GETARG_OID(rel_arg));
    else if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
        ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                        errmsg("uringprobe_reads: without rel it writes a scratch file to read"),
                        errdetail("Only roles with privileges of pg_write_server_files may.")));
    const char* allowed_list = uringprobe::pg::scratch_dirs_setting;
    const long long max_scratch_mb = uringprobe::pg::max_scratch_mb_setting;
    const long long max_memory_mb = uringprobe::pg::max_memory_mb_setting;
    const long long max_in_flight = uringprobe::pg::max_read_in_flight_setting;

    return uringprobe::pg::run_experiment(
        fcinfo, "uringprobe_reads", uringprobe::reads_params, [&](uringprobe::ReadsParams& p) {
            std::vector<std::string> allowed;
            for (int i = 0; i < rel.count; ++i)
                p.files.emplace_back(rel.paths[i]);
            if (rel.name)
                p.source = rel.name;
            if (p.files.empty())
                allowed = uringprobe::allowed_scratch_dirs(allowed_list ? allowed_list : "",
                                                           p.dir_given, p.dir);
            uringprobe::validate(p, {{uringprobe::kMaxScratchMb.name, max_scratch_mb},
                                     {uringprobe::kMaxMemoryMb.name, max_memory_mb},
                                     {uringprobe::kMaxReadInFlight.name, max_in_flight}});
            const uringprobe::ReadsResult r =
                uringprobe::run_reads(p, allowed, uringprobe::pg::stop_requested);
            return uringprobe::reads_table(r);
        });
}
