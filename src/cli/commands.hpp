// The CLI's commands: each reads its options, runs the engine in this
// process and prints the table; `params` prints the parameter tables, `sql`
// the install script made from them.
#pragma once

namespace uringprobe::cli {

int cmd_environment(int argc, char** argv);
int cmd_advise(int argc, char** argv);
int cmd_rings(int argc, char** argv);
int cmd_extend(int argc, char** argv);
int cmd_reads(int argc, char** argv);
int cmd_completions(int argc, char** argv);
int cmd_events(int argc, char** argv);
int cmd_params(int argc, char** argv);
int cmd_sql(int argc, char** argv);

} // namespace uringprobe::cli
