#include "front/serve/openapi.h"

namespace sepp::front::serve {

std::string_view OpenApiJson() {
  // Kept beside the router by hand; ServeE2e.TheOpenApiDocumentMatchesTheRoutes
  // fails when the two drift apart.
  static constexpr std::string_view kDoc = R"json({
  "openapi": "3.1.0",
  "info": {"title": "sepp serve", "version": "1",
           "description": "sepp's agent over HTTP + SSE, compatible with sandbox-agent 0.4 clients. See docs/serve.md."},
  "components": {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    "schemas": {
      "Problem": {"type": "object", "required": ["type", "title", "status", "detail"],
                  "properties": {"type": {"type": "string", "description": "urn:sepp:error:<kind>"},
                                 "title": {"type": "string"}, "status": {"type": "integer"},
                                 "detail": {"type": "string"}}},
      "AgentInfo": {"type": "object", "required": ["id", "installed", "capabilities"],
                    "properties": {"id": {"type": "string"}, "installed": {"type": "boolean"},
                                   "credentialsAvailable": {"type": "boolean"}, "version": {"type": "string"},
                                   "capabilities": {"type": "object", "additionalProperties": {"type": "boolean"}},
                                   "serverStatus": {"type": "object"}, "configOptions": {"type": "array"}}},
      "JsonRpcMessage": {"type": "object", "required": ["jsonrpc"],
                         "properties": {"jsonrpc": {"const": "2.0"}, "id": {"type": ["string", "integer"]},
                                        "method": {"type": "string"}, "params": {}, "result": {}, "error": {"type": "object"}}}
    },
    "responses": {
      "Problem": {"description": "an error", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
    },
    "parameters": {
      "ServerId": {"name": "server_id", "in": "path", "required": true,
                   "schema": {"type": "string", "pattern": "^[A-Za-z0-9._:-]{1,128}$"}},
      "Config": {"name": "config", "in": "query", "schema": {"type": "boolean"}}
    }
  },
  "security": [{"bearer": []}],
  "paths": {
    "/": {"get": {"operationId": "root", "security": [], "responses": {"200": {"description": "name and version"}}}},
    "/v1/health": {"get": {"operationId": "health", "security": [],
      "responses": {"200": {"description": "always {\"status\":\"ok\"}",
        "content": {"application/json": {"schema": {"type": "object", "properties": {"status": {"const": "ok"}}}}}}}}},
    "/v1/openapi.json": {"get": {"operationId": "openapi", "security": [], "responses": {"200": {"description": "this document"}}}},
    "/v1/agents": {"get": {"operationId": "listAgents", "parameters": [{"$ref": "#/components/parameters/Config"}],
      "responses": {"200": {"description": "the agents",
        "content": {"application/json": {"schema": {"type": "object", "properties": {"agents": {"type": "array", "items": {"$ref": "#/components/schemas/AgentInfo"}}}}}}},
        "401": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/agents/{agent}": {"get": {"operationId": "getAgent",
      "parameters": [{"name": "agent", "in": "path", "required": true, "schema": {"const": "sepp"}}, {"$ref": "#/components/parameters/Config"}],
      "responses": {"200": {"description": "the agent", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/AgentInfo"}}}},
                    "404": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/agents/{agent}/install": {"post": {"operationId": "installAgent",
      "parameters": [{"name": "agent", "in": "path", "required": true, "schema": {"const": "sepp"}}],
      "responses": {"200": {"description": "built in: already installed"}}}},
    "/v1/acp": {"get": {"operationId": "listAcpServers",
      "responses": {"200": {"description": "the connections with a running agent",
        "content": {"application/json": {"schema": {"type": "object", "properties": {"servers": {"type": "array", "items": {"type": "object",
          "properties": {"serverId": {"type": "string"}, "agent": {"type": "string"}, "createdAtMs": {"type": "integer"}}}}}}}}}}}},
    "/v1/acp/{server_id}": {
      "parameters": [{"$ref": "#/components/parameters/ServerId"}],
      "post": {"operationId": "postAcpEnvelope",
        "parameters": [{"name": "agent", "in": "query", "schema": {"const": "sepp"}, "description": "required on the first POST of a server id"}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcMessage"}}}},
        "responses": {"200": {"description": "a request's response", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcMessage"}}}},
                      "202": {"description": "a notification or response was passed on"},
                      "400": {"$ref": "#/components/responses/Problem"}, "415": {"$ref": "#/components/responses/Problem"},
                      "504": {"$ref": "#/components/responses/Problem"}}},
      "get": {"operationId": "streamAcp",
        "parameters": [{"name": "Last-Event-ID", "in": "header", "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}}],
        "responses": {"200": {"description": "SSE: event: message, id: <n>, data: <JSON-RPC message>; ': heartbeat' comments",
                              "content": {"text/event-stream": {}}},
                      "404": {"$ref": "#/components/responses/Problem"}, "406": {"$ref": "#/components/responses/Problem"},
                      "410": {"$ref": "#/components/responses/Problem"}}},
      "delete": {"operationId": "deleteAcp", "responses": {"204": {"description": "closed (also when unknown)"}}}
    }
  }
})json";
  return kDoc;
}

}  // namespace sepp::front::serve
