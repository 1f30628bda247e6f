// Runs Arrange (static/arrange.js on the vendored dagre) in node, as the layout worker does:
// reads {scripts: [dagre, arrange.js], job} on stdin, prints {xy: [x, y per card], layouts:
// how many drawings dagre made}.
"use strict";
const fs = require("fs");
const vm = require("vm");

const input = JSON.parse(fs.readFileSync(0, "utf8"));
for (const path of input.scripts) vm.runInThisContext(fs.readFileSync(path, "utf8"), { filename: path });
let layouts = 0;
const dagre = { graphlib: globalThis.dagre.graphlib, layout: (g) => { layouts++; return globalThis.dagre.layout(g); } };
const xy = globalThis.bendscopeArrange.run(input.job, dagre);
process.stdout.write(JSON.stringify({ xy: Array.from(xy), layouts: layouts }));
