// Error and Result<T>: how sepp reports failures across layers.
//
// Library code never throws across a layer boundary; it returns Result<T>
// (a value or an Error) or Status (Result<void>). An Error's message is
// written for the user: what went wrong and, where possible, what to do.
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace sepp {

struct Error {
  std::string message;
  // Optional machine-readable kind ("not_found", "http_401", "aborted", ...).
  std::string kind;

  static Error Make(std::string message, std::string kind = {}) {
    return Error{std::move(message), std::move(kind)};
  }
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit on purpose
  Result(Error error) : v_(std::move(error)) {}     // NOLINT: implicit on purpose

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok()
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

  // REQUIRES: !ok()
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

inline Status Ok() { return Status(); }

}  // namespace sepp
