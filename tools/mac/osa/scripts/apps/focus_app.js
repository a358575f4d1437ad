// Activates an app (launching it if needed) by exact name or bundle id.
// Input: {"name": "Google Chrome"}. Output: {"name": the app's name, "running": bool,
// "frontmost": bool} as the app reports itself afterwards, or {"problem": "not_found"} when no
// app has that name or id.
function run(argv) {
  var input = JSON.parse(argv[0]);
  return onNamedApp(input, function (app) {
    app.activate();
    // Activation finishes on the app's own time: look for up to two seconds.
    for (var waited = 0; !(app.running() && app.frontmost()) && waited < 2000; waited += 100) {
      delay(0.1);
    }
    var name = null;
    try {
      name = app.name();
    } catch (error) {
      name = null;
    }
    return JSON.stringify({
      name: typeof name === "string" && name ? name : input.name,
      running: app.running(),
      frontmost: app.frontmost(),
    });
  });
}
