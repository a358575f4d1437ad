// Moves and resizes an app's front window (System Events, top-left global coordinates).
// Input: {"name": "Safari", "bounds": [left, top, right, bottom], "launch": false,
//         "wait_ms": 5000}.
// Output: {"frame": [left, top, right, bottom]} as the window reports it afterwards, or
// {"problem": "not_found" | "not_running" | "no_window"}.

function frameOf(win) {
  var position = win.position();
  var size = win.size();
  return [position[0], position[1], position[0] + size[0], position[1] + size[1]];
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  return onNamedApp(input, function (app) {
    var events = Application("System Events");
    var process = events.applicationProcesses.byName(input.name);
    if (!process.exists()) {
      if (!input.launch) {
        return JSON.stringify({ problem: "not_running" });
      }
      app.activate();
    }
    var waited = 0;
    while (!(process.exists() && process.windows.length > 0)) {
      if (waited >= input.wait_ms) {
        return JSON.stringify({ problem: process.exists() ? "no_window" : "not_running" });
      }
      delay(0.1);
      waited += 100;
    }
    var win = process.windows[0];
    var bounds = input.bounds;
    win.position = [bounds[0], bounds[1]];
    win.size = [bounds[2] - bounds[0], bounds[3] - bounds[1]];
    // Some apps clamp the size to the screen they start on: place once more after resizing.
    win.position = [bounds[0], bounds[1]];
    return JSON.stringify({ frame: frameOf(win) });
  });
}
