-- Run by tests/editor/neovim.sh inside headless Neovim, configured by
-- editors/neovim/cfg-lint.lua (the README's set-up) with settings.json open:
-- CFG501 must appear on line 11, and its code action must make it go away.
local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local function cfg501()
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if code_of(d) == "CFG501" then
      return d
    end
  end
end

local settings = vim.api.nvim_get_current_buf()
if not vim.wait(20000, function() return cfg501() ~= nil end, 50) then
  fail("no CFG501 on settings.json: " .. vim.inspect(vim.diagnostic.get(0)))
end
local d = cfg501()
if d.lnum ~= 10 then
  fail("CFG501 on line " .. (d.lnum + 1) .. ", not 11")
end
print("neovim: CFG501 on settings.json line " .. (d.lnum + 1) .. ": " .. d.message:gsub("\n.*", ""))

vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
local params = vim.lsp.util.make_range_params()
-- The diagnostic as LSP shapes it (Neovim 0.7 keeps only part of it in user_data).
params.context = {
  diagnostics = {
    {
      range = {
        start = { line = d.lnum, character = d.col },
        ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
      },
      message = d.message,
      code = code_of(d),
      severity = d.severity,
      source = d.source,
    },
  },
}
local answers = vim.lsp.buf_request_sync(settings, "textDocument/codeAction", params, 10000) or {}
local chosen
for _, answer in pairs(answers) do
  for _, action in ipairs(answer.result or {}) do
    if action.title:find("CFG501", 1, true) then
      chosen = action
    end
  end
end
if not chosen then
  fail("no code action for CFG501: " .. vim.inspect(answers))
end
print("neovim: code action \"" .. chosen.title .. "\"")
vim.lsp.util.apply_workspace_edit(chosen.edit, "utf-16")

if not vim.wait(20000, function() return cfg501() == nil end, 50) then
  fail("CFG501 still shown after the code action: " .. vim.inspect(vim.diagnostic.get(settings)))
end
local config = vim.fn.bufnr("config.toml")
local text = table.concat(vim.api.nvim_buf_get_lines(config, 0, -1, false), "\n")
if not text:find("max_model_len = 10240", 1, true) then
  fail("config.toml was not edited:\n" .. text)
end
print("neovim: config.toml now says max_model_len = 10240; settings.json has no CFG501")
vim.cmd("qall!")
