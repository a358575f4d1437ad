// Shows a file or folder in Finder. Input: {"path": "/Users/ana/Documents/report.pdf"}.
// Deskhand checks the path first; the check here covers a path removed in between.
// Output: {"revealed": true} or {"problem": "no_such_path"}.
ObjC.import("Foundation");

function run(argv) {
  var input = JSON.parse(argv[0]);
  if (!$.NSFileManager.defaultManager.fileExistsAtPath(input.path)) {
    return JSON.stringify({ problem: "no_such_path" });
  }
  var finder = Application("Finder");
  finder.reveal(Path(input.path));
  finder.activate();
  return JSON.stringify({ revealed: true });
}
