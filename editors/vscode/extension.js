// Starts `cfg-lint server` for config.toml / settings.json (and *.vllm.toml /
// *.loadtest.json) and hands it to VS Code's language client: diagnostics,
// hover, completion and quick fixes all come from the server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

exports.activate = function activate() {
  const command = vscode.workspace.getConfiguration("cfgLint").get("path", "cfg-lint");
  client = new LanguageClient(
    "cfg-lint",
    "cfg-lint",
    { command, args: ["server"] },
    {
      documentSelector: [
        { scheme: "file", pattern: "**/{config.toml,*.vllm.toml}" },
        { scheme: "file", pattern: "**/{settings.json,*.loadtest.json}" },
      ],
    },
  );
  return client.start();
};

exports.deactivate = function deactivate() {
  return client ? client.stop() : undefined;
};
