// The one way to include Boost.Asio in sepp.
//
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
// under GCC 12, so every translation unit must see <utility> first. Keep
// Asio/Beast inside few .cc files: they are slow to compile on two cores.
#pragma once
#include <utility>
#include <boost/asio.hpp>

namespace sepp {
namespace asio = boost::asio;
}
