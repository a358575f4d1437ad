// Opens an app, or brings it to the front. Input: {"name": "Safari"} (a name or a bundle id).
// Output: {"opened": true, "running": bool, "frontmost": bool} as the app reports itself after
// activating, or {"error": {"number": -10814}} when no app has that name.
function run(argv) {
  var input = JSON.parse(argv[0]);
  var app;
  try {
    app = Application(input.name);
  } catch (error) {
    // Only the name lookup happens here, so any failure means no such app is installed.
    return JSON.stringify({ error: { number: -10814, message: "no application with that name" } });
  }
  app.activate();
  // Activation finishes on the app's own time: look for up to two seconds.
  for (var waited = 0; !(app.running() && app.frontmost()) && waited < 2000; waited += 100) {
    delay(0.1);
  }
  return JSON.stringify({ opened: true, running: app.running(), frontmost: app.frontmost() });
}
