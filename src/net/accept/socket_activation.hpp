#pragma once
// systemd socket activation (sd_listen_fds(3)), the few lines of the
// protocol without libsystemd: a service started by a .socket unit (or by
// systemd-socket-activate) finds its listening sockets open from descriptor 3
// on, LISTEN_FDS of them, when LISTEN_PID is its own process id; LISTEN_FDNAMES
// names them (FileDescriptorName=, colon-separated). The sockets outlive a
// restart of the service, so the port never closes.

#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

/// The first descriptor systemd passes (SD_LISTEN_FDS_START).
inline constexpr int listen_fds_start = 3;

/// One socket systemd passed.
struct inherited_socket {
  int fd = -1;
  std::string name;  ///< from LISTEN_FDNAMES; "unknown" when not named
};

/// The sockets this process was passed, in order; empty when LISTEN_PID is
/// not this process (or unset) or LISTEN_FDS is missing or malformed. Reads
/// the environment, which it leaves as it is (changing it would race with
/// other threads).
std::vector<inherited_socket> inherited_sockets();

/// Expands a "systemd" or "systemd:NAME" listen address into the `fd:N`
/// addresses of the matching inherited sockets; empty with `why` set when
/// none match. Any other address is returned as is.
std::vector<std::string> expand_inherited(std::string_view address, std::string& why);

}  // namespace stet::detail
