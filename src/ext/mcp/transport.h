// Transport: how MCP messages travel between sepp and one server. The client
// (client.h) speaks JSON-RPC over it and does not know which kind it is.
//
// Everything a server sends is outside input: a transport bounds the size
// of one message (kMaxMessageBytes; a larger one closes the connection, it
// is never resynchronised) and hands over parsed JSON only; lines that are
// not JSON are counted and reported, not delivered.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "base/json.h"
#include "base/result.h"

namespace sepp::ext::mcp {

inline constexpr size_t kMaxMessageBytes = 16u << 20;  // 16 MiB

class Transport {
 public:
  using OnMessage = std::function<void(Json)>;
  // Called once, when the connection is gone (the server exited, sent
  // something unusable, or Close() was called), with the reason in words.
  using OnClosed = std::function<void(const std::string& reason)>;

  virtual ~Transport() = default;
  // Starts delivering messages, on a thread of the transport's own.
  virtual void Start(OnMessage on_message, OnClosed on_closed) = 0;
  // Thread-safe.
  virtual Status Send(const Json& message) = 0;
  // Stops the server (or the connection) and joins the transport's threads.
  // Never from inside a callback.
  virtual void Close() = 0;
  // What the server wrote on its own (stderr), the last few KiB, redacted:
  // for error messages and `sepp mcp list`.
  virtual std::string Diagnostics() const = 0;
  // The version initialize negotiated (HTTP sends it on every request).
  virtual void SetProtocolVersion(const std::string& version) { (void)version; }
  // True while the user is asked for something the answers wait on (an
  // OAuth sign-in): request timeouts do not run out meanwhile.
  virtual bool AwaitingUser() const { return false; }
};

}  // namespace sepp::ext::mcp
