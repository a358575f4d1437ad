// What the apps scripts share. The engine puts this file before each script of this folder (the
// worker when it loads a script, a one-shot run as the text it runs), so it is part of the same
// constant code; the only value a script takes is its one JSON argument.

// `act(app)` on the app the input names (a name or a bundle id); its answer, or the
// "not_found" problem when there is no such app.
function onNamedApp(input, act) {
  var app;
  try {
    app = Application(input.name);
  } catch (error) {
    return JSON.stringify({ problem: "not_found" });
  }
  return act(app);
}
