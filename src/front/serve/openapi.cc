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
                                        "method": {"type": "string"}, "params": {}, "result": {}, "error": {"type": "object"}}},
      "CreateSessionRequest": {"type": "object", "required": ["agent"],
                               "properties": {"agent": {"const": "sepp"}, "model": {"type": "string"},
                                              "directory": {"type": "string", "description": "absolute, inside the server's workspaces"},
                                              "title": {"type": "string"}, "mcp": {"type": "object", "maxProperties": 0}}},
      "MessageRequest": {"type": "object", "required": ["message"], "properties": {"message": {"type": "string", "minLength": 1}}},
      "SessionInfo": {"type": "object",
                      "properties": {"sessionId": {"type": "string"}, "agent": {"type": "string"}, "nativeSessionId": {"type": "string"},
                                     "directory": {"type": "string"}, "model": {"type": "string"}, "title": {"type": "string"},
                                     "createdAtMs": {"type": "integer"}, "ended": {"type": "boolean"}, "eventCount": {"type": "integer"}}},
      "UniversalEvent": {"type": "object", "required": ["event_id", "sequence", "time", "session_id", "source", "synthetic", "type", "data"],
                         "properties": {"event_id": {"type": "string"}, "sequence": {"type": "integer", "minimum": 1},
                                        "time": {"type": "string", "format": "date-time"}, "session_id": {"type": "string"},
                                        "source": {"enum": ["agent", "daemon"]}, "synthetic": {"type": "boolean"},
                                        "type": {"type": "string"}, "data": {"type": "object"},
                                        "parent_call_id": {"type": "string"}, "child_session_id": {"type": "string"}}}
    },
    "responses": {
      "Problem": {"description": "an error", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
    },
    "parameters": {
      "ServerId": {"name": "server_id", "in": "path", "required": true,
                   "schema": {"type": "string", "pattern": "^[A-Za-z0-9._:-]{1,128}$"}},
      "Config": {"name": "config", "in": "query", "schema": {"type": "boolean"}},
      "SessionId": {"name": "session_id", "in": "path", "required": true,
                    "schema": {"type": "string", "pattern": "^[A-Za-z0-9._:-]{1,128}$"}},
      "Offset": {"name": "offset", "in": "query", "description": "the last sequence seen (exclusive)",
                 "schema": {"type": "integer", "minimum": 0}}
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
    },
    "/v1/sessions": {"get": {"operationId": "listSessions",
      "responses": {"200": {"description": "the sessions of this server",
        "content": {"application/json": {"schema": {"type": "object", "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/SessionInfo"}}}}}}}}}},
    "/v1/sessions/{session_id}": {
      "parameters": [{"$ref": "#/components/parameters/SessionId"}],
      "post": {"operationId": "createSession",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateSessionRequest"}}}},
        "responses": {"200": {"description": "started", "content": {"application/json": {"schema": {"type": "object",
                        "properties": {"healthy": {"type": "boolean"}, "nativeSessionId": {"type": "string"}}}}}},
                      "400": {"$ref": "#/components/responses/Problem"}, "403": {"$ref": "#/components/responses/Problem"},
                      "409": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/sessions/{session_id}/messages": {
      "parameters": [{"$ref": "#/components/parameters/SessionId"}],
      "post": {"operationId": "postMessage",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MessageRequest"}}}},
        "responses": {"204": {"description": "queued"}, "404": {"$ref": "#/components/responses/Problem"},
                      "409": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/sessions/{session_id}/messages/stream": {
      "parameters": [{"$ref": "#/components/parameters/SessionId"}],
      "post": {"operationId": "postMessageStream",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MessageRequest"}}}},
        "responses": {"200": {"description": "SSE: data: <UniversalEvent> for this message's work, ending when the agent settles",
                              "content": {"text/event-stream": {}}},
                      "404": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/sessions/{session_id}/events": {
      "parameters": [{"$ref": "#/components/parameters/SessionId"}],
      "get": {"operationId": "getEvents",
        "parameters": [{"$ref": "#/components/parameters/Offset"},
                       {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 10000}}],
        "responses": {"200": {"description": "the events after offset",
                              "content": {"application/json": {"schema": {"type": "object", "properties": {
                                "events": {"type": "array", "items": {"$ref": "#/components/schemas/UniversalEvent"}}, "hasMore": {"type": "boolean"}}}}}},
                      "400": {"$ref": "#/components/responses/Problem"}, "404": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/sessions/{session_id}/events/sse": {
      "parameters": [{"$ref": "#/components/parameters/SessionId"}],
      "get": {"operationId": "getEventsSse", "parameters": [{"$ref": "#/components/parameters/Offset"}],
        "responses": {"200": {"description": "SSE: data: <UniversalEvent>, the events after offset, then live until the session ends; ': heartbeat' comments",
                              "content": {"text/event-stream": {}}},
                      "400": {"$ref": "#/components/responses/Problem"}, "404": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/sessions/{session_id}/permissions/{permission_id}/reply": {
      "parameters": [{"$ref": "#/components/parameters/SessionId"},
                     {"name": "permission_id", "in": "path", "required": true, "schema": {"type": "string"}}],
      "post": {"operationId": "replyPermission",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["reply"],
                          "properties": {"reply": {"enum": ["once", "always", "reject"]}}}}}},
        "responses": {"204": {"description": "answered"}, "400": {"$ref": "#/components/responses/Problem"},
                      "404": {"$ref": "#/components/responses/Problem"}}}},
    "/v1/sessions/{session_id}/terminate": {
      "parameters": [{"$ref": "#/components/parameters/SessionId"}],
      "post": {"operationId": "terminateSession",
        "responses": {"204": {"description": "ended (its turn aborted)"}, "404": {"$ref": "#/components/responses/Problem"}}}}
  }
})json";
  return kDoc;
}

}  // namespace sepp::front::serve
