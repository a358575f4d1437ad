// Shows a file or folder in Finder. Input: {"path": "/Users/ana/Documents/report.pdf"}.
// Deskhand checks the path first; the check here covers a path removed in between.
// Output: {"revealed": true, "selected": [POSIX paths Finder has selected afterwards, at most
// 20]} or {"problem": "no_such_path"}.
ObjC.import("Foundation");

function run(argv) {
  var input = JSON.parse(argv[0]);
  if (!$.NSFileManager.defaultManager.fileExistsAtPath(input.path)) {
    return JSON.stringify({ problem: "no_such_path" });
  }
  var finder = Application("Finder");
  finder.reveal(Path(input.path));
  finder.activate();
  var selection = finder.selection() || [];
  // Finder selects the item on its own time: look for up to a second.
  for (var waited = 0; selection.length === 0 && waited < 1000; waited += 100) {
    delay(0.1);
    selection = finder.selection() || [];
  }
  var selected = [];
  for (var i = 0; i < selection.length && i < 20; i++) {
    selected.push(posixPath(selection[i].url()));
  }
  return JSON.stringify({ revealed: true, selected: selected });
}

// A file URL ("file:///Users/ana/My%20File.pdf") as a POSIX path, without a folder's last "/".
function posixPath(url) {
  var text = decodeURIComponent(String(url).replace(/^file:\/\//, ""));
  return text.length > 1 ? text.replace(/\/$/, "") : text;
}
