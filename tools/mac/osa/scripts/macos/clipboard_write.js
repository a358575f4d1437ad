// Puts text on the clipboard, through NSPasteboard. Input: {"text": "..."}.
// Output: {"written": true or false}.
ObjC.import("AppKit");

function run(argv) {
  var input = JSON.parse(argv[0]);
  var board = $.NSPasteboard.generalPasteboard;
  board.clearContents;
  var written = board.setStringForType($(input.text), $.NSPasteboardTypeString);
  return JSON.stringify({ written: Boolean(written) });
}
