#pragma once
// Pieces of the Prometheus text exposition format (0.0.4) that every family
// the library reports is written with, so that the phase histograms, the
// per-route histograms and the samples all spell it the same way.

#include <stet/metrics.hpp>

#include <string>
#include <string_view>

namespace stet::detail {

/// Appends the "# HELP" and "# TYPE" lines of the family `name`.
void append_family(std::string& out, std::string_view name, std::string_view help, std::string_view type);

/// Appends the samples of one histogram series: cumulative `name`_bucket lines
/// for every bound of latency_histogram (in seconds) and +Inf, then `name`_sum
/// and `name`_count. `labels` ("phase=\"parse\"", may be empty) go first in
/// each label set, ahead of `le`.
void append_histogram(std::string& out, std::string_view name, std::string_view labels,
                      const latency_histogram::snapshot& s);

/// Appends `text` as a label value: backslash, double quote and newline escaped.
void append_label_value(std::string& out, std::string_view text);

}  // namespace stet::detail
