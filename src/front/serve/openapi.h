// The OpenAPI 3.1 document of `sepp serve`, served at /v1/openapi.json (no
// token: it describes, it reveals nothing). tests/serve checks that every
// operation in it is routed and every route is in it.
#pragma once
#include <string_view>

namespace sepp::front::serve {

std::string_view OpenApiJson();

}  // namespace sepp::front::serve
