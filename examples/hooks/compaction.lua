-- Compaction on your terms: keep /compact free (no model call) by supplying
-- the summary, and never compact automatically in the middle of a review.
local sepp = require("sepp")

sepp.on("before_compact", function(ev, ctx)
  if ev.trigger == "auto" and ctx.state.get("reviewing") then
    return { action = "cancel" }
  end
  if ev.trigger == "manual" and ev.instructions ~= "" then
    return { summary = "The user summarised the session so far: " .. ev.instructions }
  end
end)

sepp.register_command{
  name = "review", description = "start a review (no automatic compaction until it ends)",
  run = function(args, ctx)
    ctx.state.set("reviewing", true)
    sepp.send_message("Review " .. args .. " and list the problems you find.", { deliver = "follow_up" })
  end,
}

sepp.register_tool{
  name = "word_count", description = "Counts the words of a text.",
  parameters = { type = "object", properties = { text = { type = "string" } }, required = { "text" } },
  run = function(args, ctx)
    local n = 0
    for _ in args.text:gmatch("%S+") do n = n + 1 end
    return { content = { { type = "text", text = tostring(n) } } }
  end,
}
