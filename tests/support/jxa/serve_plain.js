// Runs worker.js's request loop (`serve`) under plain Node, with an in-memory I/O shim and no
// JXA at all: proof that the loop is plain JavaScript. Reads a JSON spec on stdin:
//   {"worker": path, "scripts": {name: source}, "chunks": [stdin text chunks]}
// and prints {"lines": [what serve wrote], "reads": {name: times readScript was asked}}.
"use strict";

const fs = require("fs");
const vm = require("vm");

const spec = JSON.parse(fs.readFileSync(0, "utf8"));
const context = vm.createContext({});
vm.runInContext(fs.readFileSync(spec.worker, "utf8"), context, { filename: spec.worker });

const chunks = spec.chunks.slice();
const lines = [];
const reads = {};
context.serve({
  read: () => (chunks.length > 0 ? chunks.shift() : null),
  write: (line) => lines.push(line),
  readScript: (name) => {
    reads[name] = (reads[name] || 0) + 1;
    return Object.prototype.hasOwnProperty.call(spec.scripts, name) ? spec.scripts[name] : null;
  },
});
process.stdout.write(JSON.stringify({ lines, reads }));
