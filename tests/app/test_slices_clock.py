"""static/slices.js in node, on a clock the test moves: a background slice may run until the
next frame is due (less a margin), one asked to wait runs right after the next frame in a task
of its own, and with no frames drawn (a hidden page) slices are neither limited nor kept waiting."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "static" / "slices.js"

DRIVER = """
const vm = require("vm"), fs = require("fs");
let now = 0, frames = [], timers = [], log = [];
const ports = [];
class MessageChannel {
  constructor() { this.port1 = {}; this.port2 = {postMessage: () => ports.push(this.port1)}; }
}
const sandbox = {performance: {now: () => now}, requestAnimationFrame: (fn) => frames.push(fn),
  setTimeout: (fn, ms) => timers.push([now + ms, fn]), MessageChannel};
sandbox.globalThis = sandbox;
vm.createContext(sandbox);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), sandbox);
const S = sandbox.bendscopeSlices;
const tasks = () => { while (ports.length) ports.shift().onmessage(); };
const frame = (ts) => {
  now = ts; const due = frames; frames = []; due.forEach((fn) => fn(ts)); log.push("frame " + ts); tasks();
};
const out = {};
out.stale = S.left();                       // no frame yet: not limited
S.frame(100); now = 107; out.after = S.left();  // 7 ms into a frame begun at 100
now = 116; out.late = S.left();             // past the margin: wait for the frame
S.afterFrame(() => log.push("slice at " + now));
tasks(); out.waiting = log.slice();         // nothing ran yet
frame(116.7); out.ran = log.slice();        // the frame, then the slice in a task of its own
timers.forEach(([, fn]) => fn()); out.once = log.slice();  // (its fallback timer does not run it again)
now = 300; out.hidden = S.left();           // no frame for long: not limited
S.afterFrame(() => log.push("hidden slice at " + now));
now = 400; timers.filter(([at]) => at <= now).forEach(([, fn]) => fn()); out.fallback = log.slice(-1);
process.stdout.write(JSON.stringify(out));
"""


def test_slices_run_for_what_is_left_before_the_next_frame_and_wait_for_it_after_the_frame():
    node = shutil.which("node")
    assert node, "node is needed (it comes with npm, which `make vendor` needs too)"
    done = subprocess.run([node, "-e", DRIVER, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["stale"] is None  # (Infinity in JSON: no frames drawn, no limit)
    assert abs(out["after"] - (100 + 1000 / 60 - 2 - 107)) < 1e-9
    assert out["late"] < 0
    assert out["waiting"] == []
    assert out["ran"] == ["frame 116.7", "slice at 116.7"]
    assert out["once"] == out["ran"]
    assert out["hidden"] is None
    assert out["fallback"] == ["hidden slice at 400"]
