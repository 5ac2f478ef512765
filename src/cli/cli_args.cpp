#include "cli_args.hpp"

#include "cli_usage.hpp"
#include "contract/error.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace uringprobe::cli {

void usage_error(const std::string& msg) {
    std::fprintf(stderr, "uringprobe-cli: %s\n\n%s", msg.c_str(), usage_text().c_str());
    std::exit(2);
}

const char* Args::value() {
    if (i_ + 1 >= argc_)
        usage_error(opt_ + " needs a value");
    return argv_[++i_];
}

void Args::common(const std::string& opt, bool* tsv) {
    if (opt == "--format") {
        const std::string f = value();
        if (f != "table" && f != "tsv")
            usage_error("--format must be table or tsv, got '" + f + "'");
        *tsv = f == "tsv";
    } else if (opt == "-h" || opt == "--help") {
        std::fputs(usage_text().c_str(), stdout);
        std::exit(0);
    } else {
        usage_error("unknown option '" + opt + "'");
    }
}

namespace {
// The one form every number on the command line takes: an optional sign
// and decimal digits, with `fraction` a decimal fraction too ("2.5"); no
// spaces, no base prefix (0x10), no exponent (1e3), no inf or nan.
bool decimal_text(const char* text, bool fraction) {
    const char* p = text + (*text == '-' || *text == '+');
    const char* digits = p;
    while (*p >= '0' && *p <= '9')
        ++p;
    if (p == digits)
        return false;
    if (fraction && *p == '.') {
        const char* decimals = ++p;
        while (*p >= '0' && *p <= '9')
            ++p;
        if (p == decimals)
            return false;
    }
    return *p == '\0';
}
} // namespace

long long parse_number(const std::string& opt, const char* text, bool bigint) {
    errno = 0;
    const long long v = decimal_text(text, false) ? std::strtoll(text, nullptr, 10) : 0;
    if (!decimal_text(text, false) || errno || (!bigint && (v < INT32_MIN || v > INT32_MAX)))
        usage_error(opt + " must be a decimal integer, got '" + text + "'");
    return v;
}

int parse_int(const std::string& opt, const char* text) {
    return static_cast<int>(parse_number(opt, text, false));
}

double parse_seconds(const std::string& opt, const char* text) {
    errno = 0;
    const double v = decimal_text(text, true) ? std::strtod(text, nullptr) : 0;
    if (!decimal_text(text, true) || errno || !std::isfinite(v))
        usage_error(opt + " must be a decimal number of seconds, got '" + text + "'");
    return v;
}

ParamValue option_value(const Param& param, const std::string& opt, Args& args) {
    ParamValue v;
    switch (param.type) {
    case ParamType::boolean:
        v.b = !param.default_value().b; // the option turns the default around
        break;
    case ParamType::text:
        v.s = args.value();
        break;
    case ParamType::seconds:
        v.seconds = parse_seconds(opt, args.value());
        break;
    case ParamType::relation:
        usage_error(opt +
                    " is SQL's (a relation of the database); here name its files with --file");
        break;
    default:
        v.i = parse_number(opt, args.value(), param.type == ParamType::bigint);
    }
    return v;
}

} // namespace uringprobe::cli
