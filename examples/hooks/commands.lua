-- A command for the user and the events around a prompt. Put it in
-- ~/.sepp/hooks/ or run `sepp --hook examples/hooks/commands.lua`, then type
-- `/standup yesterday's work` in any front end (the TUI, -p, RPC, ACP).
local sepp = require("sepp")

-- /standup ARGS: nothing goes to the model until the command sends it.
sepp.register_command{
  name = "standup",
  description = "Write a stand-up note from the git log",
  run = function(args, ctx)
    local focus = args ~= "" and args or "the last day"
    sepp.send_message("Summarise `git log --since=yesterday` as a stand-up note about " ..
                      focus .. ".", { deliver = "follow_up" })
  end,
}

-- Every prompt: house rules for this prompt's requests only.
sepp.on("before_agent_start", function(ev, ctx)
  return { system = "Answer in British English." }
end)

-- What goes to the model: long tool outputs of earlier turns are cut down
-- (the session keeps them whole).
sepp.on("context", function(ev, ctx)
  local changed = false
  for i, m in ipairs(ev.messages) do
    if m.role == "tool_result" and i < #ev.messages - 4 then
      for _, block in ipairs(m.content) do
        if block.type == "text" and #block.text > 4000 then
          block.text = block.text:sub(1, 2000) .. "\n[cut by a hook]"
          changed = true
        end
      end
    end
  end
  if changed then return { messages = ev.messages } end
end)

-- No network access in this project, without asking; every other request
-- still goes to the user.
sepp.on("permission_request", function(ev, ctx)
  for _, w in ipairs(ev.widenings) do
    if w:find("^network access") then
      return { action = "deny", reason = "this project works offline" }
    end
  end
end)

sepp.on("error", function(ev, ctx)
  sepp.log("warn", "the prompt failed: " .. ev.kind .. ": " .. ev.message)
end)

sepp.on("model_select", function(ev, ctx)
  sepp.notify("model: " .. ev.previous .. " -> " .. ev.model)
end)
