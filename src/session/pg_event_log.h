// Internal to src/session: the PostgreSQL event log (event_log.h), which
// several `sepp serve` processes share. See pg_event_log.cc for the schema.
#pragma once
#include <memory>
#include <string>

#include "base/result.h"
#include "session/pg_url.h"

namespace sepp::session {

class EventLog;
class PgConn;
// Applies the schema migrations not yet applied (pg_event_log.cc lists
// them), under an advisory lock; refuses a schema from a newer sepp.
// location names the database in messages.
Status ApplyPgMigrations(PgConn& conn, const std::string& location);

// Connects, applies the migrations not yet applied and starts listening for
// other servers' appends. Fails (kind "unavailable", "auth", "unsupported")
// when the database cannot be used: a server does not start on a store it
// cannot reach; once running, it rides out outages (requests fail, then work
// again when the database is back).
Result<std::unique_ptr<EventLog>> OpenPgEventLog(const PgConfig& config);

}  // namespace sepp::session
