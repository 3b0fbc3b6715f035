#pragma once
/// @file
/// Access log settings.

#include <string>

namespace stet {

/// How access log lines are written.
enum class access_log_format {
  common,    ///< NCSA common log format
  combined,  ///< common + "Referer" "User-Agent"
  json,      ///< one JSON object per line
};

/// The access log is off unless enabled. When on, each worker formats lines into
/// its own buffer and hands full buffers (or, at the latest, every second) to one
/// writer thread: a request never waits for a write to the log.
struct access_log_options {
  bool enabled = false;                                  ///< write the access log at all
  std::string path{};                                    ///< file to append to; empty means standard output
  access_log_format format = access_log_format::common;  ///< line format
  /// Keep one request in N (1 keeps all). Decided before any formatting; 5xx
  /// answers are always kept.
  unsigned sample_one_in = 1;
  /// Add the TLS protocol version and cipher of the connection to each line
  /// (`TLSv1.3 TLS_AES_128_GCM_SHA256` at the end of a text line, `- -` over
  /// plain HTTP; `"tls_protocol"` and `"tls_cipher"` in JSON, null over plain HTTP).
  bool tls_fields = false;
};

}  // namespace stet
