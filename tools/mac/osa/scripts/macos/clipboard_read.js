// Reads the text on the clipboard, through NSPasteboard (no Automation permission needed).
// Input: {"max_chars": 20000}. Output: {"text": "..." or null, "length": <characters in all>}.
ObjC.import("AppKit");

// Cuts to at most `limit` UTF-16 units without splitting a surrogate pair.
function cut(text, limit) {
  if (text.length <= limit) {
    return text;
  }
  var end = limit;
  var code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
    end -= 1;
  }
  return text.slice(0, end);
}

// Characters as Python counts them (code points), without building an array.
function codePoints(text) {
  var count = 0;
  for (var i = 0; i < text.length; i++) {
    var code = text.charCodeAt(i);
    var low = code >= 0xdc00 && code <= 0xdfff;
    var afterHigh = i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff;
    if (!(low && afterHigh)) {
      count += 1;
    }
  }
  return count;
}

function run(argv) {
  var input = JSON.parse(argv[0]);
  var board = $.NSPasteboard.generalPasteboard;
  var text = ObjC.unwrap(board.stringForType($.NSPasteboardTypeString));
  if (typeof text !== "string") {
    return JSON.stringify({ text: null, length: 0 });
  }
  return JSON.stringify({ text: cut(text, input.max_chars), length: codePoints(text) });
}
