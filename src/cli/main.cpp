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
        for (const cli::Command& c : cli::commands())
            if (cmd == c.name)
                return c.run(argc - 2, argv + 2);
        if (cmd == "params")
            return cli::cmd_params(argc - 2, argv + 2);
        if (cmd == "sql")
            return cli::cmd_sql(argc - 2, argv + 2);
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
