// Puts text on the clipboard, through NSPasteboard, and reads it back.
// Input: {"text": "...", "max_chars": n}.
// Output: {"written": true or false, "found": the clipboard's text afterwards (at most
//          max_chars) or null, "length": its length in UTF-16 units}.
ObjC.import("AppKit");

function run(argv) {
  var input = JSON.parse(argv[0]);
  var board = $.NSPasteboard.generalPasteboard;
  board.clearContents;
  var written = board.setStringForType($(input.text), $.NSPasteboardTypeString);
  var back = ObjC.unwrap(board.stringForType($.NSPasteboardTypeString));
  var found = typeof back === "string" ? back : null;
  return JSON.stringify({
    written: Boolean(written),
    found: found === null ? null : found.slice(0, input.max_chars),
    length: found === null ? 0 : found.length,
  });
}
