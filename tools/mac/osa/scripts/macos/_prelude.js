// What the macos scripts share. The engine puts this file before each script of this folder
// (the worker when it loads a script, a one-shot run as the text it runs), so it is part of the
// same constant code; the only value a script takes is its one JSON argument.

// `text` cut to `limit` characters; "" for anything that is not text (a missing field).
function clip(text, limit) {
  return typeof text === "string" ? text.slice(0, limit) : "";
}
