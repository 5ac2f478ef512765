// uringprobe-cli: the extension's experiments from a shell, in a bare
// process, so that a backend's results can be set against a baseline.
#include "cli_args.hpp"
#include "cli_usage.hpp"
#include "commands.hpp"
#include "contract/error.hpp"

#include <cstdio>
#include <exception>
#include <string>

namespace cli = uringprobe::cli;

int main(int argc, char** argv) {
    if (argc < 2)
        cli::usage_error("no command given");
    const std::string cmd = argv[1];
    try {
        if (cmd == "environment")
            return cli::cmd_environment(argc - 2, argv + 2);
        if (cmd == "env") // the command's old name
            cli::usage_error("env was renamed environment");
        if (cmd == "advise")
            return cli::cmd_advise(argc - 2, argv + 2);
        if (cmd == "rings")
            return cli::cmd_rings(argc - 2, argv + 2);
        if (cmd == "extend")
            return cli::cmd_extend(argc - 2, argv + 2);
        if (cmd == "completions")
            return cli::cmd_completions(argc - 2, argv + 2);
        if (cmd == "events")
            return cli::cmd_events(argc - 2, argv + 2);
        if (cmd == "params")
            return cli::cmd_params(argc - 2, argv + 2);
        if (cmd == "-h" || cmd == "--help") {
            std::fputs(cli::usage_text().c_str(), stdout);
            return 0;
        }
        cli::usage_error("unknown command '" + cmd + "'");
    } catch (const uringprobe::SysError& e) {
        std::fprintf(stderr, "uringprobe-cli: %s\n", e.what());
        if (!e.hint().empty())
            std::fprintf(stderr, "hint: %s\n", e.hint().c_str());
        return 1;
    } catch (const uringprobe::InvalidArgument& e) {
        cli::usage_error(e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "uringprobe-cli: %s\n", e.what());
        return 1;
    }
}
