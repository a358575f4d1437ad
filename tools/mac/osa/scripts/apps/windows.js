// The front window of each visible foreground app, for saving a layout.
// Input: {"max_apps": 50}. Output: {"windows": [{"app": name, "frame": [l, t, r, b]}]}.
function run(argv) {
  var input = JSON.parse(argv[0]);
  var events = Application("System Events");
  var processes = events.applicationProcesses.whose({ backgroundOnly: false, visible: true });
  var names = processes.name();
  var out = [];
  for (var i = 0; i < names.length && out.length < input.max_apps; i++) {
    var wins = events.applicationProcesses.byName(names[i]).windows;
    if (wins.length === 0) {
      continue;
    }
    var position = wins[0].position();
    var size = wins[0].size();
    out.push({
      app: names[i],
      frame: [position[0], position[1], position[0] + size[0], position[1] + size[1]],
    });
  }
  return JSON.stringify({ windows: out });
}
