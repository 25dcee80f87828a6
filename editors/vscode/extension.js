// Starts `cardc lsp` for .cardc files and restarts it on request or when its settings change.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function makeClient() {
  const config = vscode.workspace.getConfiguration("cardc");
  const command = config.get("server.command", "cardc");
  const args = config.get("server.args", ["lsp"]);
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const serverOptions = { command, args, transport: TransportKind.stdio, options: { cwd } };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "cardc" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.cardc") },
  };
  return new LanguageClient("cardc", "cardc", serverOptions, clientOptions);
}

async function restart() {
  if (client) {
    await client.stop();
  }
  client = makeClient();
  await client.start();
}

function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand("cardc.restartServer", restart));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration("cardc.server")) {
      restart();
    }
  }));
  return restart();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
