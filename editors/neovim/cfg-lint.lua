-- cfg-lint's language server for vLLM config.toml and load-test settings.json
-- (Neovim 0.7 or later). Put this in init.lua, or `dofile()` it from there.
-- One server serves every such file, so a change to one file of a pair
-- re-lints the other.
local cfg_lint = { client = nil }
vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
  pattern = { "config.toml", "settings.json", "*.vllm.toml", "*.loadtest.json" },
  callback = function(args)
    if cfg_lint.client == nil or vim.lsp.client_is_stopped(cfg_lint.client) then
      cfg_lint.client = vim.lsp.start_client({
        name = "cfg-lint",
        cmd = { "cfg-lint", "server" },
        root_dir = vim.fn.getcwd(),
      })
    end
    vim.lsp.buf_attach_client(args.buf, cfg_lint.client)
  end,
})
