// Internal to src/session: the PostgreSQL event log (event_log.h), which
// several `sepp serve` processes share. See pg_event_log.cc for the schema.
#pragma once
#include <memory>

#include "base/result.h"
#include "session/pg_url.h"

namespace sepp::session {

class EventLog;
// Connects, applies the migrations not yet applied and starts listening for
// other servers' appends. Fails (kind "unavailable", "auth", "unsupported")
// when the database cannot be used: a server does not start on a store it
// cannot reach; once running, it rides out outages (requests fail, then work
// again when the database is back).
Result<std::unique_ptr<EventLog>> OpenPgEventLog(const PgConfig& config);

}  // namespace sepp::session
