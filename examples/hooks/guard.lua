-- A guard for the model's commands: put it in ~/.sepp/hooks/ (yours, always
-- loaded) or .sepp/hooks/ (the project's, loaded once you `sepp trust` it),
-- or run `sepp --hook examples/hooks/guard.lua -p "..."`.
local sepp = require("sepp")

-- Refuse destructive commands; the model reads the reason as the result.
sepp.on("tool_call", { tool = "bash", on_error = "deny" }, function(ev, ctx)
  local cmd = ev.input.command or ""
  if cmd:find("rm %-rf /") or cmd:find("git push %-%-force") then
    return { action = "deny", reason = "destructive command: ask the user to run it" }
  end
  -- Run the tests quietly: rewrite the arguments, tell the model why.
  if cmd:match("^npm test") and not cmd:find("%-%-silent") then
    return { action = "allow", input = { command = cmd .. " --silent" },
             context = "the hook added --silent to npm test" }
  end
end)

-- Count the commands; the count survives -c / -r (ctx.state is in the session).
sepp.on("tool_result", "bash", function(ev, ctx)
  local n = (ctx.state.get("commands") or 0) + 1
  ctx.state.set("commands", n)
  if ev.is_error and ev.content:find("command not found") then
    return { context = "that program is not installed here; do not retry it" }
  end
end)

-- Do not let the model stop before it has run the tests once.
sepp.on("stop", function(ev, ctx)
  if ev.stop_hook_active or ctx.state.get("tests_ran") then return nil end
  return { action = "continue", reason = "Run the test suite before you finish." }
end)
sepp.on("tool_call", "bash", function(ev, ctx)
  if (ev.input.command or ""):find("test") then ctx.state.set("tests_ran", true) end
end)
