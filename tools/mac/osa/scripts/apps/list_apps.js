// Lists running apps (System Events' foreground processes) and installed apps whose names
// contain `query`. Input: {"query": "chro" or null, "max_installed": 200, "max_chars": 300}.
// Output: {"running": [{"name", "bundle_id", "frontmost", "hidden"}],
//          "installed": [{"name", "path"}], "installed_total": n}.

var FOLDERS = [
  "/Applications",
  "/Applications/Utilities",
  "/System/Applications",
  "/System/Applications/Utilities",
];

function clip(text, limit) {
  return typeof text === "string" ? text.slice(0, limit) : "";
}

function installedApps(query, limit) {
  ObjC.import("Foundation");
  var manager = $.NSFileManager.defaultManager;
  var found = [];
  var total = 0;
  var wanted = typeof query === "string" ? query.toLowerCase() : null;
  for (var i = 0; i < FOLDERS.length; i++) {
    var listing = manager.contentsOfDirectoryAtPathError(FOLDERS[i], null);
    var names = listing && !listing.isNil() ? ObjC.deepUnwrap(listing) : [];
    for (var j = 0; j < names.length; j++) {
      var file = String(names[j]);
      if (file.slice(-4) !== ".app") {
        continue;
      }
      var name = file.slice(0, -4);
      if (wanted !== null && name.toLowerCase().indexOf(wanted) < 0) {
        continue;
      }
      total += 1;
      if (found.length < limit) {
        found.push({ name: name, path: FOLDERS[i] + "/" + file });
      }
    }
  }
  return { apps: found, total: total };
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  var events = Application("System Events");
  var processes = events.applicationProcesses.whose({ backgroundOnly: false });
  var names = processes.name();
  var ids = processes.bundleIdentifier();
  var front = processes.frontmost();
  var visible = processes.visible();
  var running = [];
  for (var i = 0; i < names.length; i++) {
    running.push({
      name: clip(names[i], input.max_chars),
      bundle_id: clip(ids[i], input.max_chars),
      frontmost: front[i] === true,
      hidden: visible[i] === false,
    });
  }
  var installed = installedApps(input.query, input.max_installed);
  return JSON.stringify({
    running: running,
    installed: installed.apps,
    installed_total: installed.total,
  });
}
