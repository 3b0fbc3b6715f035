#pragma once
// The Asio headers stet uses, in one place: the library's precompiled header.

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

namespace stet::detail {
namespace asio = boost::asio;
using tcp = boost::asio::ip::tcp;
}  // namespace stet::detail
