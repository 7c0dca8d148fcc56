#include "front/serve/problem.h"

namespace sepp::front::serve {
namespace {

const char* Title(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Error";
  }
}

}  // namespace

Json ProblemJson(int status, std::string_view kind, std::string_view detail, const Json& extra) {
  Json j = {{"type", "urn:sepp:error:" + std::string(kind)},
            {"title", Title(status)},
            {"status", status},
            {"detail", std::string(detail)}};
  if (extra.is_object())
    for (const auto& [k, v] : extra.items()) j[k] = v;
  return j;
}

void SendProblem(net::ResponseWriter& w, const net::Headers& extra_headers, int status,
                 std::string_view kind, std::string_view detail, const Json& extra) {
  net::Headers h = {{"Content-Type", "application/problem+json"}};
  h.insert(h.end(), extra_headers.begin(), extra_headers.end());
  w.Send(status, h, DumpJson(ProblemJson(status, kind, detail, extra)));
}

}  // namespace sepp::front::serve
