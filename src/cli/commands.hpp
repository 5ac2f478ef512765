// The CLI's commands beside the experiments' (cli_usage.hpp's commands(),
// each of which reads its options, runs the engine in this process and
// prints the table): `params` prints the parameter tables, `sql` the
// install script made from them.
#pragma once

namespace uringprobe::cli {

int cmd_params(int argc, char** argv);
int cmd_sql(int argc, char** argv);

} // namespace uringprobe::cli
