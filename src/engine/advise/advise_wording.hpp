// How uringprobe_advise() words its figures: the units, the evidence of
// each measurement, the facts it quotes. The rules choose; these say.
#pragma once

#include "advise/advise_summaries.hpp"

#include <string>

namespace uringprobe {

std::string seconds_text(double s);             // "0.5 s", "12 s"
std::string kib_text(unsigned long long bytes); // KiB, rounded up
std::string limit_text(unsigned long long v);   // a limit, or "unlimited"
std::string percent_text(double share);         // 0.05 -> "5%"
const char* sizing_rule_text(ExtendSizing s);

// "+310 us (250-370 us, 5 runs) per connection, 19% of a bare fork"
std::string added_text(const LayoutFigures& f);
// The fork measurement: rings, entries, each layout's p50, scaling; or why
// it was not measured.
std::string rings_evidence(const AdviseContext& c, const ForkCostSummary& fork);
// "kernel 6.18: kernel.io_uring_disabled 0, NO_MMAP accepted, ..."
std::string kernel_text(const AdviseContext& c);
// "982 rings (950 + ...), 7.7 MiB of ring memory, one region"
std::string plan_text(const AdviseContext& c);
// "one region" / "separate mappings per ring"
std::string layout_name(bool one_region);
// The extension runs of one filesystem, each rule's time and switches.
std::string extend_evidence(const ExtendSummary& s);

} // namespace uringprobe
